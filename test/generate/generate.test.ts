// `openapi-mcp generate` on the bundled example: what it writes, that the project builds with strict tsc and
// passes its own smoke test, that the runtime is a byte-for-byte copy, and the re-generation rules.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { renderProject } from "../../src/generate/render.js";
import { runtimeSchemas, runtimeSources } from "../../src/generate/sources.js";
import { generateProject } from "../../src/generate/index.js";
import { loadCatalog } from "../../src/load/index.js";
import { linkDependencies, REPOSITORY, temporaryProjectDir, typecheck } from "../support/generated.js";
import { startPeer } from "../support/stdio-peer.js";
import { json, Upstream } from "../support/upstream.js";

const GENERATOR = "openapi-mcp test";

describe("a generated project", () => {
  let project: string;

  beforeAll(async () => {
    project = temporaryProjectDir("petstore");
    generateProject({
      catalog: await loadCatalog(join(REPOSITORY, "examples/petstore.openapi.yaml")),
      out: project,
      generator: GENERATOR,
    });
    linkDependencies(project);
  });

  it("builds with strict tsc and passes its own smoke test", () => {
    expect(typecheck(project)).toBe("");
    const output = execFileSync(process.execPath, ["--test", "test/"], { cwd: project, encoding: "utf8" });
    expect(output).toMatch(/# pass 1\n# fail 0/);
  });

  it("runs a code-mode script from its own build: the sandbox worker is found next to dist/runtime/modes/sandbox", () => {
    if (!existsSync(join(project, "dist/runtime/modes/sandbox/run-script.js"))) typecheck(project);
    const script = `import { runScript } from "./dist/runtime/modes/sandbox/run-script.js";
const api = async ({ tool, args }) => ({ ok: true, value: { tool, args } });
const outcome = await runScript({ code: "console.log('hi'); return await api.getPet({ petId: 7 })", tools: ["getPet"], api });
console.log(JSON.stringify(outcome));`;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: project,
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toEqual({
      ok: true,
      value: { tool: "getPet", args: { petId: 7 } },
      logs: ["hi"],
      apiCalls: [{ tool: "getPet", ok: true }],
    });
  });

  it("carries the runtime as byte-for-byte copies of this package's sources (one implementation)", () => {
    const sources = runtimeSources();
    expect(sources.map((s) => s.path)).toEqual(
      expect.arrayContaining(["runtime/engine.ts", "runtime/start.ts", "server/mcp.ts", "catalog/types.ts"]),
    );
    for (const source of sources) {
      expect(readFileSync(join(project, "src", source.path), "utf8"), source.path).toBe(
        readFileSync(join(REPOSITORY, "src", source.path), "utf8"),
      );
    }
    // The settings reader it carries checks files against the same schema, found where the reader looks for it.
    for (const schema of runtimeSchemas())
      expect(readFileSync(join(project, schema.path), "utf8"), schema.path).toBe(
        readFileSync(join(REPOSITORY, schema.path), "utf8"),
      );
  });

  it("has no eval or new Function anywhere", () => {
    for (const file of renderProject({ catalog: JSON.parse(readFileSync(join(project, "catalog.json"), "utf8")) })) {
      expect(file.content, file.path).not.toMatch(/\beval\s*\(|new\s+Function\s*\(/);
    }
  });
});

describe("code in src/custom/", () => {
  const HOOKS = `import type { EngineHooks } from "../runtime/engine.js";
import type { ToolArguments } from "../tools.js";

export const beforeRequest: EngineHooks["beforeRequest"] = ({ tool, arguments: args, request }) => {
  if (tool.name !== "getPet") return undefined;
  const { petId } = args as unknown as ToolArguments["getPet"];
  return { ...request, headers: { ...request.headers, "x-next-pet": String(petId + 1) } };
};

export const afterResult: EngineHooks["afterResult"] = ({ result }) => ({ ...result, content: [...result.content, { type: "text", text: "checked by our hook" }] });

// @ts-expect-error a pet id is a number
export const wrong: ToolArguments["getPet"] = { petId: "7" };
`;

  it("is built with the project, typed by src/tools.ts, and its hooks run on every call", async () => {
    const project = temporaryProjectDir("hooks");
    generateProject({
      catalog: await loadCatalog(join(REPOSITORY, "examples/petstore.openapi.yaml")),
      out: project,
      generator: GENERATOR,
    });
    linkDependencies(project);
    writeFileSync(join(project, "src/custom/hooks.ts"), HOOKS);
    // The @ts-expect-error line fails the build unless the argument types are right.
    expect(typecheck(project)).toBe("");
    const upstream = await Upstream.start();
    const peer = await startPeer({
      command: process.execPath,
      args: [join(project, "dist/index.js"), "--base-url", upstream.url],
      env: { API_KEY_API_KEY: "k-1" },
    });
    try {
      upstream.on("GET", "/pets/7", json({ id: 7, name: "Rex", kind: { species: "dog" } }));
      const line = await peer.request("tools/call", { name: "getPet", arguments: { petId: 7 } });
      expect(upstream.only().headers["x-next-pet"]).toBe("8");
      expect(JSON.parse(line).result.content.at(-1)).toEqual({ type: "text", text: "checked by our hook" });
    } finally {
      await peer.close();
      await upstream.close();
    }
  });
});

describe("generating again", () => {
  async function fresh(): Promise<{ project: string; catalog: Awaited<ReturnType<typeof loadCatalog>> }> {
    const catalog = await loadCatalog(join(REPOSITORY, "examples/petstore.openapi.yaml"));
    const project = temporaryProjectDir("again");
    generateProject({ catalog, out: project, generator: GENERATOR });
    return { project, catalog };
  }

  it("changes nothing when nothing changed, and never touches src/custom/", async () => {
    const { project, catalog } = await fresh();
    const hooks = join(project, "src/custom/hooks.ts");
    writeFileSync(hooks, "export const beforeRequest = undefined;\nexport const afterResult = undefined;\n// mine\n");
    const { report } = generateProject({ catalog, out: project, generator: GENERATOR });
    expect(report.created).toEqual([]);
    expect(report.updated).toEqual([]);
    expect(report.kept).toEqual(["src/custom/hooks.ts"]);
    expect(readFileSync(hooks, "utf8")).toContain("// mine");
  });

  it("updates what the source changed and removes what it no longer has", async () => {
    const { project, catalog } = await fresh();
    const fewer = { ...catalog, tools: catalog.tools.filter((t) => t.name !== "deletePet") };
    const { report } = generateProject({ catalog: fewer, out: project, generator: GENERATOR });
    expect(report.updated).toEqual(expect.arrayContaining(["catalog.json", "src/tools.ts", "README.md"]));
    expect(report.deleted).toEqual([]);
    expect(readFileSync(join(project, "catalog.json"), "utf8")).not.toContain('"deletePet"');
  });

  it("refuses to overwrite a generated file someone edited, writing nothing, unless forced", async () => {
    const { project, catalog } = await fresh();
    const index = join(project, "src/index.ts");
    writeFileSync(index, `${readFileSync(index, "utf8")}\n// a local change\n`);
    const fewer = { ...catalog, tools: catalog.tools.slice(1) };
    expect(() => generateProject({ catalog: fewer, out: project, generator: GENERATOR })).toThrow(
      /changed since they were generated[\s\S]*src\/index\.ts[\s\S]*src\/custom\//,
    );
    expect(readFileSync(join(project, "catalog.json"), "utf8")).toContain(catalog.tools[0]!.name);
    generateProject({ catalog: fewer, out: project, generator: GENERATOR, force: true });
    expect(readFileSync(index, "utf8")).not.toContain("a local change");
  });

  it("will not write into a directory it did not create", async () => {
    const catalog = await loadCatalog(join(REPOSITORY, "examples/petstore.openapi.yaml"));
    const project = temporaryProjectDir("foreign");
    generateProject({ catalog, out: project, generator: GENERATOR });
    const other = join(project, "src");
    expect(() => generateProject({ catalog, out: other, generator: GENERATOR })).toThrow(
      /not empty and was not generated by openapi-mcp/,
    );
    expect(existsSync(join(other, "package.json"))).toBe(false);
  });
});

describe("snapshots of what the templates render (one per file)", () => {
  it.each(["examples/petstore.openapi.yaml", "examples/widgets.actions.yaml"])("%s", async (source) => {
    const files = renderProject({ catalog: await loadCatalog(join(REPOSITORY, source)) });
    const copied = new Set([...runtimeSources().map((s) => `src/${s.path}`), ...runtimeSchemas().map((s) => s.path)]);
    const label = source.split("/").pop()!.split(".")[0]!;
    for (const file of files.filter((f) => !copied.has(f.path))) {
      await expect(file.content).toMatchFileSnapshot(`__snapshots__/${label}/${file.path}.snap`);
    }
  });
});
