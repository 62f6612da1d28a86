// A generated project as a list of files, in memory: the handlebars templates rendered from the catalog, the
// catalog itself as data, the tools' argument types, and the runtime copied from this package's sources.
// Templates do not escape by default (`noEscape`): every value goes through the helper for where it lands.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import { credentialVariables, describeCredential } from "../catalog/security.js";
import type { Catalog } from "../catalog/types.js";
import { cellCodeSpan, codeSpan, markdown, packageName as toPackageName } from "./escape.js";
import { json, tsString } from "../catalog/ts-text.js";
import { runtimeSchemas, runtimeSources } from "./sources.js";
import { renderTypes } from "./typescript.js";

const TEMPLATES = fileURLToPath(new URL("../../templates/", import.meta.url));
const PACKAGE_JSON = fileURLToPath(new URL("../../package.json", import.meta.url));

export interface GeneratedFile {
  /** Relative to the project's root. */
  path: string;
  content: string;
  /** Written once, then the user's: never overwritten (src/custom/). */
  userOwned?: boolean;
}

/** Template file names that cannot be the real name (a leading dot would hide them in the package). */
const RENAMED: Record<string, string> = {
  "env.example": ".env.example",
  dockerignore: ".dockerignore",
  gitignore: ".gitignore",
};
const RUNTIME_DEPENDENCIES = [
  // Code mode's sandbox: QuickJS built for WebAssembly (runtime/modes/sandbox/).
  "@jitl/quickjs-wasmfile-release-sync",
  "@modelcontextprotocol/server",
  "ajv",
  "ajv-formats",
  "jose",
  "quickjs-emscripten-core",
  "re2js",
  // Loaded only when --state names a Redis (runtime/shared/redis.ts).
  "redis",
  "undici",
  "yaml",
];
// The smoke test's MCP client.
const DEVELOPMENT_DEPENDENCIES = ["@modelcontextprotocol/client", "@types/node", "typescript"];

function handlebars(): typeof Handlebars {
  const instance = Handlebars.create();
  instance.registerHelper("json", (value: unknown) => json(value));
  instance.registerHelper("jsonInner", (value: string) => json(value).slice(1, -1));
  instance.registerHelper("jsonBlock", (value: unknown, indent: unknown) => {
    const spaces = typeof indent === "number" ? indent : 2;
    return json(value, { indent: 2 }).replaceAll("\n", `\n${" ".repeat(spaces)}`);
  });
  instance.registerHelper("tsString", (value: string) => tsString(value));
  // For text inside a `//` comment: one line, nothing that could end it.
  instance.registerHelper("commentLine", (value: string) => value.replace(/[\r\n\u2028\u2029]+/g, " "));
  instance.registerHelper("hashLine", (value: string) => value.replace(/[\r\n\u2028\u2029]+/g, " "));
  instance.registerHelper("md", (value: string) => markdown(value));
  instance.registerHelper("code", (value: string) => codeSpan(value));
  instance.registerHelper("cell", (value: string) => cellCodeSpan(value));
  return instance;
}

function templates(dir = TEMPLATES): Array<{ path: string; source: string }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return templates(path);
    return name.endsWith(".hbs")
      ? [{ path: relative(TEMPLATES, path).slice(0, -".hbs".length), source: readFileSync(path, "utf8") }]
      : [];
  });
}

function versions(names: string[], pkg: Record<string, Record<string, string>>): Record<string, string> {
  const all = { ...pkg.dependencies, ...pkg.devDependencies };
  return Object.fromEntries(names.map((name) => [name, all[name] ?? "*"]));
}

/**
 * Local source paths as they read from the sources' common directory (`petstore.yaml`, `apis/cars.yaml`): the
 * project is built and run elsewhere, and the generating machine's directories are nobody's business. URLs stay.
 */
function portablePaths(catalog: Catalog): (location: string) => string {
  const files = catalog.sources.map((s) => s.location).filter((l) => isAbsolute(l));
  const common =
    files.length === 0
      ? ""
      : files
          .map((f) => dirname(f))
          .reduce((a, b) => {
            while (a !== dirname(a) && relative(a, b).startsWith("..")) a = dirname(a);
            return a;
          });
  return (location) => (common && isAbsolute(location) ? relative(common, location).split(sep).join("/") : location);
}

/** A tools/list over the context budget (see `inspect`): the README's client lines then use `--mode dynamic`. */
export interface LargeListing {
  /** The budget, in approximate tokens, that tools/list in tools mode exceeds. */
  threshold: number;
}

export function renderProject({
  catalog,
  name,
  largeListing,
}: {
  catalog: Catalog;
  name?: string;
  largeListing?: LargeListing;
}): GeneratedFile[] {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version: string } & Record<
    string,
    Record<string, string>
  >;
  const single = catalog.sources.length === 1 ? catalog.sources[0] : undefined;
  const title = single?.title ?? "openapi-mcp server";
  const packageName = toPackageName(name ?? title);
  const credentials = Object.entries(catalog.credentials).map(([id, credential]) => ({
    id,
    detail: describeCredential(credential),
    variables: credentialVariables(credential),
  }));
  const variables = [...new Set(credentials.flatMap((c) => c.variables))];
  // The client lines start the server as it should run: with every credential variable, and in dynamic mode when
  // the listing alone would fill the model's context.
  const modeArgs = largeListing ? ["--mode", "dynamic"] : [];
  const count = (n: number): string => n.toLocaleString("en-US");
  const context = {
    packageName,
    title,
    version: single?.version ?? "",
    description: `MCP server for ${title}`,
    generatorVersion: pkg.version,
    toolCount: catalog.tools.length,
    oneTool: catalog.tools.length === 1,
    tools: catalog.tools.map((t) => ({
      name: t.name,
      method: t.operation.method,
      path: t.operation.path,
      effect: t.effect,
    })),
    credentials,
    exampleEnv: Object.fromEntries(variables.map((v) => [v, "…"])),
    serverArgs: `[${[`/path/to/${packageName}/dist/index.js`, ...modeArgs].map((a) => json(a)).join(", ")}]`,
    largeListing: largeListing ? { threshold: count(largeListing.threshold) } : false,
    placeholderEnv: Object.fromEntries(variables.map((v) => [v, "placeholder-for-the-smoke-test"])),
    claudeCommand: `claude mcp add ${packageName}${variables.map((v) => ` -e ${v}=…`).join("")} -- node /path/to/${packageName}/dist/index.js${modeArgs.map((a) => ` ${a}`).join("")}`,
    dependencies: versions(RUNTIME_DEPENDENCIES, pkg),
    devDependencies: versions(DEVELOPMENT_DEPENDENCIES, pkg),
  };
  const engine = handlebars();
  const files: GeneratedFile[] = templates().map(({ path, source }) => {
    const target = RENAMED[path] ?? path;
    return {
      path: target,
      content: engine.compile(source, { noEscape: true, strict: true })(context),
      ...(target.startsWith("src/custom/") ? { userOwned: true } : {}),
    };
  });
  // The catalog as data, without what only mattered while loading (diagnostics), and without this machine's paths.
  const local = portablePaths(catalog);
  const data = {
    tools: catalog.tools.map((t) => ({ ...t, origin: { ...t.origin, file: local(t.origin.file) } })),
    definitions: catalog.definitions,
    credentials: catalog.credentials,
    sources: catalog.sources.map((s) => ({ ...s, location: local(s.location) })),
    diagnostics: [],
  };
  files.push({ path: "catalog.json", content: `${JSON.stringify(data)}\n` });
  files.push({ path: "src/tools.ts", content: renderTypes(catalog) });
  for (const source of runtimeSources()) files.push({ path: `src/${source.path}`, content: source.content });
  files.push(...runtimeSchemas());
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}
