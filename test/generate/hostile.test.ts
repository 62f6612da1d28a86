// `openapi-mcp generate` on a hostile spec: strings full of comment closers, backticks, `${…}`, quotes, HTML,
// mustaches and line breaks. The project must build and pass its own smoke test, carry every string unchanged
// where it is data (catalog.json, tools/list, server name and version), and keep it inert where it is text.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Listing } from "../../src/catalog/listing.js";
import { credentialVariables } from "../../src/catalog/security.js";
import type { Catalog, JsonSchema } from "../../src/catalog/types.js";
import type { GeneratedFile } from "../../src/generate/render.js";
import { generateProject } from "../../src/generate/index.js";
import { loadCatalog } from "../../src/load/index.js";
import { linkDependencies, REPOSITORY, temporaryProjectDir, typecheck } from "../support/generated.js";

const FIXTURE = join(REPOSITORY, "test/fixtures/generate/hostile.openapi.yaml");
const LINE_BREAK = /\r\n?|\n|[\u2028\u2029]/;

/** Every string in the spec, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([key, inner]) => [key, ...strings(inner)]);
  return [];
}

/** Property name → description, of every described property in the tools' inputs and the definitions. */
function descriptions(schema: JsonSchema | undefined, into = new Map<string, string>()): Map<string, string> {
  if (typeof schema !== "object") return into;
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    if (typeof property === "object" && typeof property.description === "string") into.set(name, property.description);
    descriptions(property, into);
  }
  return into;
}

/** Property name → the text of the doc comment above it in src/tools.ts, each `*\/` read back as a comment closer. */
function docComments(source: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\n\s*("(?:[^"\\\n]|\\.)*")\??:/g)) {
    const body = m[1]!.includes("\n")
      ? m[1]!
          .split("\n")
          .slice(1, -1)
          .map((line) => line.replace(/^\s*\* ?/, ""))
          .join("\n")
      : m[1]!.slice(1, -1);
    found.set(JSON.parse(m[2]!) as string, body.replaceAll("*\\/", "*/"));
  }
  return found;
}

/** The contents of Markdown code spans (CommonMark: a backtick run, not escaped, closed by an equal run). */
function codeSpans(markdown: string): string[] {
  return [...markdown.matchAll(/(?<![\\`])(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g)].map((m) =>
    m[2]!.replace(/^ ([\s\S]*) $/, "$1"),
  );
}

describe("a project generated from a hostile spec", () => {
  let catalog: Catalog;
  let files: GeneratedFile[];
  let project: string;
  let compiled: string;
  let client: Client;
  const read = (path: string): string => readFileSync(join(project, path), "utf8");

  beforeAll(async () => {
    catalog = await loadCatalog(FIXTURE);
    project = temporaryProjectDir("hostile");
    files = generateProject({ catalog, out: project, generator: "openapi-mcp test" }).files;
    linkDependencies(project);
    compiled = typecheck(project);
    const env = Object.fromEntries(
      Object.values(catalog.credentials)
        .flatMap(credentialVariables)
        .map((v) => [v, "placeholder"]),
    );
    client = new Client({ name: "hostile-test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(project, "dist/index.js")],
      env: { ...process.env, ...env } as Record<string, string>,
      stderr: "pipe",
    });
    if (compiled === "") await client.connect(transport);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  it("builds with strict tsc and passes its own smoke test", () => {
    expect(compiled).toBe("");
    const output = execFileSync(process.execPath, ["--test", "test/"], { cwd: project, encoding: "utf8" });
    expect(output).toMatch(/# pass 1\n# fail 0/);
  });

  it("carries the catalog unchanged in catalog.json", () => {
    const data = JSON.parse(read("catalog.json")) as Catalog;
    const portable = catalog.tools.map((t) => ({
      ...t,
      origin: { ...t.origin, file: relative(dirname(FIXTURE), t.origin.file) },
    }));
    expect(data.tools).toEqual(portable);
    expect(data.definitions).toEqual(catalog.definitions);
    expect(JSON.stringify(data)).toContain("*/ ${process.exit(1)} </script>");
  });

  it("lists the tools over MCP exactly as the catalog does, under the spec's own title and version", async () => {
    const listing = new Listing(catalog);
    const { tools } = await client.listTools();
    const shown = tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations,
    }));
    expect(shown).toEqual(catalog.tools.map((tool) => listing.entry(tool)));
    const info = (parse(readFileSync(FIXTURE, "utf8")) as { info: { title: string; version: string } }).info;
    expect(client.getServerVersion()).toMatchObject({ name: info.title, version: info.version });
  });

  it("keeps each string inert in the text files: no eval, no line of its own, no early comment end", () => {
    const injected = strings(parse(readFileSync(FIXTURE, "utf8"))).flatMap((s) =>
      s
        .split(LINE_BREAK)
        .slice(1)
        .map((line) => line.trim())
        .filter(Boolean),
    );
    expect(injected).toEqual(expect.arrayContaining(["RUN rm -rf /", "# heading", "<img src=x onerror=alert(1)>"]));
    for (const file of files) {
      expect(file.content, file.path).not.toMatch(/\beval\s*\(|\bnew\s+Function\s*\(/);
      // A line break from the spec is a new Dockerfile instruction, .env entry, Markdown block or statement.
      for (const line of file.content.split("\n"))
        expect(
          injected.filter((i) => line.trimStart().startsWith(i)),
          `${file.path}: ${line}`,
        ).toEqual([]);
      // Raw U+2028/U+2029 end a line for older parsers, editors and linters.
      if (/\.(ts|mjs)$/.test(file.path)) expect(file.content, file.path).not.toMatch(/[\u2028\u2029]/);
    }
    const expected = new Map([
      ...catalog.tools.flatMap((t) => [...descriptions(t.inputSchema)]),
      ...Object.values(catalog.definitions).flatMap((d) => [...descriptions(d)]),
    ]);
    expect(expected.size).toBeGreaterThanOrEqual(5);
    const comments = docComments(read("src/tools.ts"));
    for (const [name, description] of expected)
      expect(comments.get(name), name).toBe(description.split(LINE_BREAK).join("\n"));
  });

  it("writes package.json, .env.example and README.md that say what the spec says, escaped for each", () => {
    const title = catalog.sources[0]!.title;
    const pkg = JSON.parse(read("package.json")) as { name: string; description: string };
    expect(pkg.description).toBe(`MCP server for ${title}`);
    expect(pkg.name).toMatch(/^[a-z0-9][a-z0-9._~-]{0,213}$/);
    const variables = Object.values(catalog.credentials).flatMap(credentialVariables);
    const entries = read(".env.example")
      .split("\n")
      .filter((line) => line && !line.startsWith("#"));
    // Then the endpoint's own tokens, which the Docker image requires.
    expect(entries).toEqual([...variables.map((v) => `${v}=`), "MCP_TOKENS="]);
    const readme = read("README.md");
    const prose = readme.replace(/(?<![\\`])(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, "");
    expect(prose).not.toMatch(/(?<!\\)<\/?\s*(script|img|b)\b/i);
    const spans = codeSpans(readme);
    for (const id of Object.keys(catalog.credentials)) expect(spans).toContain(id.split(LINE_BREAK).join(" "));
    const rows = readme
      .slice(readme.indexOf("## Tools"))
      .split("\n")
      .filter((line) => line.startsWith("|"));
    expect(rows).toHaveLength(2 + catalog.tools.length);
    // A table row keeps its five cell borders; a `|` inside a cell is written `\|` (GFM), also in a code span.
    for (const row of rows) expect(row.match(/(?<!\\)\|/g), row).toHaveLength(5);
    for (const tool of catalog.tools) expect(spans.map((s) => s.replaceAll("\\|", "|"))).toContain(tool.operation.path);
  });
});
