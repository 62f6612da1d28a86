// The shape of a catalog read back from the cache (cache.ts), checked before anything uses it: a cache entry is
// input like any other, so it may hold only what the builder could have made of a source (types and choices of
// every field the runtime acts on, valid and unique tool names, credentials that exist, bounded nesting).

import { TOOL_NAME_PATTERN } from "../catalog/naming.js";
import { isObject } from "../catalog/pointer.js";
import { HTTP_METHODS } from "../catalog/types.js";

type Check = (value: unknown) => boolean;

const string: Check = (v) => typeof v === "string";
const boolean: Check = (v) => typeof v === "boolean";
const positive: Check = (v) => typeof v === "number" && Number.isFinite(v) && v > 0;
const oneOf =
  (...choices: readonly string[]): Check =>
  (v) =>
    typeof v === "string" && choices.includes(v);
const arrayOf =
  (item: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(item);
const recordOf =
  (item: Check): Check =>
  (v) =>
    isObject(v) && Object.values(v).every(item);
/** An object with these fields (`?` after a name: optional). */
const shape = (fields: Record<string, Check>): Check => {
  const list = Object.entries(fields).map(([name, check]) => ({
    name: name.replace(/\?$/, ""),
    optional: name.endsWith("?"),
    check,
  }));
  return (v) => {
    if (!isObject(v)) return false;
    for (const { name, optional, check } of list) {
      const value = v[name];
      if (!((optional && value === undefined) || check(value))) return false;
    }
    return true;
  };
};
const schema: Check = (v) => isObject(v) || typeof v === "boolean";
const objectSchema: Check = (v) => isObject(v) && v.type === "object";

const STYLES = ["simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "tabDelimited", "deepObject"];
const rateLimit = shape({ requests: positive, windowSeconds: positive });
const binding = shape({
  name: string,
  argument: string,
  required: boolean,
  style: oneOf(...STYLES),
  explode: boolean,
  allowReserved: boolean,
  shape: oneOf("primitive", "array", "object"),
  "contentType?": string,
});
const encoding = shape({
  "contentType?": string,
  "style?": oneOf(...STYLES),
  "explode?": boolean,
  "allowReserved?": boolean,
  "file?": boolean,
});
const operation = shape({
  method: oneOf(...HTTP_METHODS),
  serverUrl: string,
  path: string,
  parameters: shape({
    path: arrayOf(binding),
    query: arrayOf(binding),
    header: arrayOf(binding),
    cookie: arrayOf(binding),
  }),
  "body?": shape({
    mediaType: string,
    kind: oneOf("json", "form", "multipart", "text", "binary"),
    required: boolean,
    "argument?": string,
    "fields?": arrayOf(string),
    "fieldNames?": recordOf(string),
    "encoding?": recordOf(encoding),
  }),
  "headers?": recordOf(string),
  accept: arrayOf(string),
  security: arrayOf(shape({ schemes: arrayOf(shape({ id: string, scopes: arrayOf(string) })) })),
  "rateLimit?": rateLimit,
});
const tool = shape({
  name: (v) => typeof v === "string" && TOOL_NAME_PATTERN.test(v),
  title: string,
  description: string,
  inputSchema: objectSchema,
  "outputSchema?": objectSchema,
  "outputWrapped?": boolean,
  annotations: shape({
    title: string,
    readOnlyHint: boolean,
    destructiveHint: boolean,
    idempotentHint: boolean,
    openWorldHint: boolean,
  }),
  effect: oneOf("read", "write", "destructive"),
  "approval?": boolean,
  operation,
  source: string,
  origin: shape({ file: string, pointer: string, "operationId?": string, tags: arrayOf(string) }),
});
const valueSource: Check = (v) => shape({ env: string })(v) || shape({ value: string })(v);
const CREDENTIAL_FIELDS: Record<string, Record<string, Check>> = {
  apiKey: { in: oneOf("header", "query", "cookie"), parameter: string, value: valueSource },
  bearer: { token: valueSource },
  basic: { username: valueSource, password: valueSource },
  oauth2: { tokenUrl: string, scopes: arrayOf(string), clientId: valueSource, clientSecret: valueSource },
  unsupported: { reason: string },
};
const credential: Check = (v) =>
  isObject(v) &&
  typeof v.type === "string" &&
  Object.hasOwn(CREDENTIAL_FIELDS, v.type) &&
  shape({ name: string, "description?": string, ...CREDENTIAL_FIELDS[v.type] })(v);
const source = shape({
  id: string,
  kind: oneOf("openapi", "actions"),
  format: string,
  title: string,
  version: string,
  location: string,
  "rateLimit?": rateLimit,
  "inFlight?": shape({
    "maxInFlight?": positive,
    "maxInFlightPerPrincipal?": positive,
    "maxQueued?": positive,
    "queueTimeoutMs?": positive,
  }),
});
const diagnostic = shape({
  severity: oneOf("error", "warning"),
  code: string,
  message: string,
  "file?": string,
  "pointer?": string,
  "line?": positive,
  "column?": positive,
  "tool?": string,
});
const catalog = shape({
  tools: arrayOf(tool),
  definitions: recordOf(schema),
  credentials: recordOf(credential),
  sources: arrayOf(source),
  diagnostics: arrayOf(diagnostic),
});

/** Deeper than any catalog the builder makes: sources nest at most 128 levels (catalog/depth.ts), tools a few more. */
const MAX_CATALOG_DEPTH = 256;

/** What is wrong with a value read as a catalog, or undefined when it has a catalog's shape. */
export function catalogProblem(value: unknown): string | undefined {
  if (!catalog(value)) return "not a catalog";
  const { tools, credentials } = value as {
    tools: Array<{ name: string; operation: { security: Array<{ schemes: Array<{ id: string }> }> } }>;
    credentials: object;
  };
  const names = new Set<string>();
  for (const { name, operation: op } of tools) {
    if (names.has(name)) return `tool name ${name} twice`;
    names.add(name);
    const unknown = op.security.flatMap((r) => r.schemes).find((s) => !Object.hasOwn(credentials, s.id));
    if (unknown) return `${name} needs credential ${unknown.id}, which is not there`;
  }
  if (deeperThan(value, MAX_CATALOG_DEPTH)) return "nested too deeply";
  return undefined;
}

const heavy = shape({ definitions: recordOf(schema), tools: arrayOf((v) => Array.isArray(v) && v.length === 3) });

/**
 * What is wrong with the schemas and descriptions read apart from a catalog (cache-entry.ts keeps them on a line
 * of their own, read after the first answers), or undefined when they fit its tools: for each, a description, an
 * input schema and an output schema exactly where the tool has one.
 */
export function schemasProblem({
  value,
  outputs,
}: {
  value: unknown;
  outputs: readonly boolean[];
}): string | undefined {
  if (!heavy(value)) return "not the catalog's schemas";
  const { tools } = value as { tools: Array<[unknown, unknown, unknown]> };
  if (tools.length !== outputs.length) return "not one set of schemas a tool";
  for (const [i, [description, input, output]] of tools.entries()) {
    if (typeof description !== "string" || !objectSchema(input)) return `the schemas of tool ${i + 1} are not valid`;
    if (outputs[i] ? !objectSchema(output) : output !== null) return `the output schema of tool ${i + 1} is not valid`;
  }
  if (deeperThan(value, MAX_CATALOG_DEPTH)) return "nested too deeply";
  return undefined;
}

/** Whether a value nests deeper than `max` levels (catalog/depth.ts finds where; this only whether, cheaply). */
function deeperThan(root: unknown, max: number): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (depth > max) return true;
    if (typeof value !== "object" || value === null) continue;
    for (const key in value) {
      const child = (value as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
