// Checks one catalog the way a client would: every tools/list entry parses with the MCP SDK's ToolSchema, every
// input and output schema compiles with Ajv2020 (our runtime) and output schemas with the SDK client's own
// validator (draft-07 Ajv), every name is valid and unique. Shared by the corpus test and bench/corpus-full.mjs.

import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { Listing } from "../dist/catalog/listing.js";
import { TOOL_NAME_PATTERN } from "../dist/catalog/naming.js";

const addFormats = addFormatsModule.default ?? addFormatsModule;

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

/** `count` items spread evenly over the list, deterministically. */
function spread(list, count) {
  const step = list.length / count;
  return Array.from({ length: count }, (_, i) => list[Math.floor(i * step)]);
}
