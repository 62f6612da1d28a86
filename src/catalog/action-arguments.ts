// An action's arguments are placed by name: `{braces}` in the path, then `in:` overrides, then the query for
// reading methods and a body built from the remaining arguments for the others.

import { ArgumentNames, isSafeArgument, renamedMessage, safeArgument } from "./argument-names.js";
import type { ActionSpec } from "./action-definition.js";
import { isReservedHeader } from "./http-headers.js";
import { fileSchema, isBinary, shapeOf } from "./inputs.js";
import { bodyKind } from "./media-type.js";
import { setOwn } from "./own.js";
import { isObject, joinPointer } from "./pointer.js";
import type { SchemaConverter } from "./schema/convert.js";
import type {
  HttpMethod,
  JsonObjectSchema,
  ParameterBinding,
  ParameterLocation,
  PropertyEncoding,
  Report,
  RequestBodyBinding,
} from "./types.js";

const QUERY_METHODS = new Set(["GET", "HEAD", "DELETE", "OPTIONS"]);

/** The action's input schema as converted, with the properties and required names being placed. */
interface DeclaredInput {
  schema: Record<string, unknown>;
  properties: Record<string, unknown>;
  required: Set<string>;
  /** The raw properties, whose shapes decide how they are sent. */
  rawProperties: Record<string, unknown>;
}

/** Where one action is read from and where its problems go. */
interface ActionAt {
  action: ActionSpec;
  pointer: string;
  converter: SchemaConverter;
  report: Report;
}

export function placeArguments({ method, ...at }: ActionAt & { method: HttpMethod }): {
  schema: JsonObjectSchema;
  parameters: Record<ParameterLocation, ParameterBinding[]>;
  body?: RequestBodyBinding;
} {
  const input = declaredInput(at);
  const placeholders = pathPlaceholders({ ...at, input });
  checkPlacements({ ...at, input });
  const argumentOf = actionArguments({ names: Object.keys(input.properties), pointer: at.pointer, report: at.report });
  const { parameters, bodyFields } = placeEach({ ...at, method, input, placeholders, argumentOf });
  const { schema, properties, required } = input;
  if (required.size > 0)
    schema.required = [...required].map((name) => (Object.hasOwn(properties, name) ? argumentOf(name) : name));
  const body = bodyFields.length > 0 ? bodyBinding({ ...at, input, bodyFields, argumentOf }) : undefined;
  // The input schema's properties under their argument names (the same, unless a client could not carry one).
  schema.properties = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [argumentOf(name), property]),
  );
  return { schema: schema as JsonObjectSchema, parameters, ...(body ? { body } : {}) };
}

/** The input schema converted, as an object that refuses arguments nobody declared. */
function declaredInput({ action, pointer, converter, report }: ActionAt): DeclaredInput {
  const rawInput = action.inputSchema ?? { type: "object", properties: {} };
  const converted = converter.convert(rawInput, {
    direction: "input",
    pointer: `${pointer}/inputSchema`,
    inline: true,
  });
  const schema: Record<string, unknown> = typeof converted === "object" ? { ...converted } : {};
  if (schema.type !== undefined && schema.type !== "object") {
    report({
      severity: "error",
      code: "input-not-object",
      pointer: `${pointer}/inputSchema`,
      message: `inputSchema must describe an object (found type ${JSON.stringify(schema.type)})`,
    });
  }
  schema.type = "object";
  // A copy: converted schemas are shared, and file properties are replaced below.
  const properties = isObject(schema.properties) ? { ...schema.properties } : {};
  schema.properties = properties;
  // Arguments nobody declared would be dropped silently; refuse them instead, as OpenAPI tools do.
  if (schema.additionalProperties === undefined) schema.additionalProperties = false;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const rawResolved = converter.resolve(rawInput);
  const rawProperties = isObject(rawResolved) && isObject(rawResolved.properties) ? rawResolved.properties : {};
  return { schema, properties, required, rawProperties };
}

/** The path's `{placeholders}`: each must be a declared property, and is required (a path cannot be built without it). */
function pathPlaceholders({ action, pointer, report, input }: ActionAt & { input: DeclaredInput }): Set<string> {
  const placeholders = new Set([...action.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!));
  for (const name of placeholders) {
    if (!Object.hasOwn(input.properties, name)) {
      report({
        severity: "error",
        code: "undeclared-path-parameter",
        pointer: `${pointer}/path`,
        message: `path placeholder {${name}} has no property in inputSchema`,
      });
    } else {
      input.required.add(name);
    }
  }
  return placeholders;
}

function checkPlacements({ action, pointer, report, input }: ActionAt & { input: DeclaredInput }): void {
  for (const name of Object.keys(action.in ?? {})) {
    if (!Object.hasOwn(input.properties, name))
      report({
        severity: "warning",
        code: "unknown-argument",
        pointer: `${pointer}/in/${name}`,
        message: `'in' places '${name}', which inputSchema does not declare`,
      });
  }
}

/** Each property's place: a parameter binding, or a field of the body. */
function placeEach({
  action,
  method,
  pointer,
  converter,
  report,
  input: { properties, required, rawProperties },
  placeholders,
  argumentOf,
}: ActionAt & {
  method: HttpMethod;
  input: DeclaredInput;
  placeholders: Set<string>;
  argumentOf: (name: string) => string;
}): {
  parameters: Record<ParameterLocation, ParameterBinding[]>;
  bodyFields: string[];
} {
  const parameters: Record<ParameterLocation, ParameterBinding[]> = { path: [], query: [], header: [], cookie: [] };
  const bodyFields: string[] = [];
  for (const name of Object.keys(properties)) {
    // Own entries only: a property named `constructor` is not placed by Object's.
    const stated = action.in && Object.hasOwn(action.in, name) ? action.in[name] : undefined;
    const placement = typeof stated === "object" ? stated : { in: stated, name: undefined };
    const location = placement.in ?? (placeholders.has(name) ? "path" : QUERY_METHODS.has(method) ? "query" : "body");
    if (location === "body") {
      bodyFields.push(name);
      continue;
    }
    if (location === "header" && isReservedHeader(placement.name ?? name)) {
      report({
        severity: "error",
        code: "reserved-header",
        pointer: `${pointer}/in/${name}`,
        message: `'${placement.name ?? name}' is set by HTTP or by openapi-mcp; an argument cannot be sent as that header`,
      });
      continue;
    }
    const style = location === "query" || location === "cookie" ? "form" : "simple";
    parameters[location].push({
      name: placement.name ?? name,
      argument: argumentOf(name),
      required: location === "path" || required.has(name),
      style,
      explode: style === "form",
      allowReserved: false,
      shape: shapeOf(converter.resolve(rawProperties[name])),
    });
  }
  return { parameters, bodyFields };
}

/** The body: an object of the fields, in the action's media type; binary fields of a multipart body are files. */
function bodyBinding({
  action,
  converter,
  input: { properties, required, rawProperties },
  bodyFields,
  argumentOf,
}: ActionAt & {
  input: DeclaredInput;
  bodyFields: string[];
  argumentOf: (name: string) => string;
}): RequestBodyBinding {
  const renamed = bodyFields.filter((name) => argumentOf(name) !== name);
  const mediaType = action.contentType ?? "application/json";
  const encoding: Record<string, PropertyEncoding> = {};
  if (bodyKind(mediaType) === "multipart") {
    for (const name of bodyFields) {
      if (!isBinary(converter.resolve(rawProperties[name]))) continue;
      setOwn(properties, name, fileSchema(properties[name]));
      setOwn(encoding, name, { file: true });
    }
  }
  return {
    mediaType,
    kind: bodyKind(mediaType),
    required: bodyFields.some((name) => required.has(name)),
    fields: bodyFields.map(argumentOf),
    ...(renamed.length > 0 ? { fieldNames: Object.fromEntries(renamed.map((name) => [argumentOf(name), name])) } : {}),
    ...(Object.keys(encoding).length > 0 ? { encoding } : {}),
  };
}

/** Each property's argument name: its own, or a safe one for a name no client can carry (reported). */
function actionArguments({
  names,
  pointer,
  report,
}: {
  names: string[];
  pointer: string;
  report: Report;
}): (name: string) => string {
  const claimed = new ArgumentNames();
  const argumentOf = new Map<string, string>();
  for (const name of names) if (isSafeArgument(name)) argumentOf.set(name, claimed.claim(name));
  for (const name of names) {
    if (argumentOf.has(name)) continue;
    const argument = claimed.claim(safeArgument(name));
    argumentOf.set(name, argument);
    report({
      severity: "warning",
      code: "argument-renamed",
      pointer: joinPointer(`${pointer}/inputSchema/properties`, name),
      message: renamedMessage({ kind: "property", name, argument }),
    });
  }
  return (name) => argumentOf.get(name) ?? name;
}
