// Tools from a custom action definition (already validated against schemas/action-definition.schema.json).
// Arguments are placed by name: `{braces}` in the path, then `in:` overrides, then the query for reading methods
// and a body built from the remaining arguments for the others.

import type { CatalogBuilder, SourceSettings } from "./builder.js";
import { describeTool, titleFor } from "./builder.js";
import { ArgumentNames, isSafeArgument, renamedMessage, safeArgument } from "./argument-names.js";
import { annotationsFor, sideEffectOf } from "./effects.js";
import { isReservedHeader } from "./http-headers.js";
import { fileSchema, isBinary, shapeOf } from "./inputs.js";
import { bodyKind } from "./media-type.js";
import { baseToolName, holdOwnNames } from "./naming.js";
import { setOwn } from "./own.js";
import { asObjectSchema } from "./outputs.js";
import { isObject, joinPointer } from "./pointer.js";
import type { SchemaConverter } from "./schema/convert.js";
import { applyAuthEntries, definedNames, everyToolRequirement } from "./auth.js";
import type { CredentialOverride } from "./security.js";
import type {
  CredentialScheme,
  Diagnostic,
  HttpMethod,
  JsonObjectSchema,
  ParameterBinding,
  ParameterLocation,
  PropertyEncoding,
  RateLimit,
  RequestBodyBinding,
  SecurityRequirement,
  ValueSource,
} from "./types.js";

export type ActionAuth =
  | { type: "none" }
  | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string; value: string }
  | { type: "bearer"; token: string }
  | { type: "basic"; username: string; password: string }
  | { type: "oauth2"; tokenUrl: string; clientId: string; clientSecret: string; scopes?: string[] };

export interface ActionSpec {
  name: string;
  title?: string;
  description?: string;
  tags?: string[];
  method: string;
  path: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | boolean;
  /** A location, or a location and the name to use on the wire. */
  in?: Record<string, Placement | { in: Placement; name?: string }>;
  contentType?: string;
  headers?: Record<string, string>;
  rateLimit?: RateLimit;
  approval?: boolean;
}

export interface ActionDefinition {
  name: string;
  description?: string;
  version?: string | number;
  baseUrl: string;
  auth?: ActionAuth;
  headers?: Record<string, string>;
  rateLimit?: RateLimit;
  schemas?: Record<string, unknown>;
  actions: ActionSpec[];
}

export interface ActionSource extends SourceSettings {
  kind: "actions";
  file: string;
  definition: ActionDefinition;
}

type Placement = ParameterLocation | "body";

const QUERY_METHODS = new Set(["GET", "HEAD", "DELETE", "OPTIONS"]);
const VARIABLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** `${VAR}` → `{ env: "VAR" }`; anything else is a literal (allowed only where the schema allows it). */
export function valueSource(text: string): ValueSource {
  const match = VARIABLE.exec(text);
  return match ? { env: match[1]! } : { value: text };
}

export function addActionSource(builder: CatalogBuilder, source: ActionSource): void {
  const { definition, id, file } = source;
  const credentialId = (name: string): string => (id ? `${id}.${name}` : name);
  // A definition has one credential, named after the definition (unless an auth entry defines it anew).
  const own = definedNames(source.auth).has(definition.name) ? undefined : credentialFor(definition, source.auth?.[definition.name]);
  const { credentials, everyTool, diagnostics } = applyAuthEntries({
    declared: own ? { [definition.name]: own } : {},
    declaredNames: definition.auth && definition.auth.type !== "none" ? [definition.name] : [],
    ...(source.auth ? { entries: source.auth } : {}),
    envName: (name) => (id ? `${id}_${name}` : name),
    file,
    ...(source.authPlace ? { place: source.authPlace } : {}),
  });
  builder.diagnostics.push(...diagnostics);
  for (const [name, credential] of Object.entries(credentials)) builder.addCredential(credentialId(name), credential);
  const credential = Object.hasOwn(credentials, definition.name) ? credentials[definition.name] : undefined;
  const security: SecurityRequirement[] = everyTool
    ? everyToolRequirement(everyTool, credentialId)
    : credential
      ? [{ schemes: [{ id: credentialId(definition.name), scopes: credential.type === "oauth2" ? credential.scopes : [] }] }]
      : [];
  const converter = builder.schemaConverter({ root: definition, dialect: "jsonschema", file, id });
  builder.sources.push({
    id,
    kind: "actions",
    format: "action definition",
    title: definition.description ?? definition.name,
    version: definition.version === undefined ? "" : String(definition.version),
    location: file,
    ...((source.rateLimit ?? definition.rateLimit) ? { rateLimit: (source.rateLimit ?? definition.rateLimit)! } : {}),
  });

  const accepted = definition.actions.flatMap((action, index) => {
    const method = action.method.toUpperCase() as HttpMethod;
    const choice = baseToolName({ operationId: action.name, method, path: action.path, namespace: id });
    const tags = action.tags ?? [];
    if (!builder.accepts({ tags, operationId: action.name, name: choice.name, path: action.path, method }, source.filters)) return [];
    return [{ action, index, method, choice, tags }];
  });
  holdOwnNames({ candidates: accepted.map(({ method, action, choice }) => ({ choice, salt: `${method} ${action.path}` })), hold: (name, salt) => builder.holdName(name, salt) });
  for (const { action, index, method, choice, tags } of accepted) {
    const pointer = `/actions/${index}`;
    const report = (d: Omit<Diagnostic, "file">): void => {
      builder.diagnostics.push({ ...d, file, tool: choice.name });
    };
    const inputs = placeArguments({ action, method, pointer, converter, report });
    const output =
      action.outputSchema === undefined
        ? undefined
        : asObjectSchema(converter.convert(action.outputSchema, { direction: "output", pointer: `${pointer}/outputSchema`, inline: true }), builder.definitions);
    let description = describeTool({ ...(action.description !== undefined ? { description: action.description } : {}) });
    if (!description) {
      report({ severity: "warning", code: "missing-description", pointer, message: `action '${action.name}' has no description; the model sees only its name` });
      description = `${method} ${action.path}`;
    }
    const title = action.title ?? titleFor({ name: choice.name });
    const headers = { ...definition.headers, ...action.headers };
    builder.addTool(
      {
        name: choice.name,
        title,
        description,
        inputSchema: inputs.schema,
        ...(output ? { outputSchema: output.schema } : {}),
        ...(output?.wrapped ? { outputWrapped: true } : {}),
        annotations: annotationsFor({ method, title }),
        effect: sideEffectOf(method),
        ...(action.approval ? { approval: true } : {}),
        operation: {
          method,
          serverUrl: source.baseUrl ?? definition.baseUrl.replace(/\/+$/, ""),
          path: action.path,
          parameters: inputs.parameters,
          ...(inputs.body ? { body: inputs.body } : {}),
          ...(Object.keys(headers).length > 0 ? { headers } : {}),
          accept: output ? ["application/json"] : [],
          security,
          ...(action.rateLimit ? { rateLimit: action.rateLimit } : {}),
        },
        source: id,
        origin: { file, pointer, operationId: action.name, tags },
      },
      `${method} ${action.path}`,
    );
  }
}

function credentialFor(definition: ActionDefinition, override: CredentialOverride | undefined): CredentialScheme | undefined {
  const auth = definition.auth;
  if (!auth || auth.type === "none") return undefined;
  const name = definition.name;
  switch (auth.type) {
    case "apiKey":
      return { name, type: "apiKey", in: auth.in, parameter: auth.name, value: override?.value ?? valueSource(auth.value) };
    case "bearer":
      return { name, type: "bearer", token: override?.value ?? valueSource(auth.token) };
    case "basic":
      return { name, type: "basic", username: override?.username ?? valueSource(auth.username), password: override?.password ?? valueSource(auth.password) };
    case "oauth2":
      return {
        name,
        type: "oauth2",
        tokenUrl: override?.tokenUrl ?? auth.tokenUrl,
        scopes: override?.scopes ?? auth.scopes ?? [],
        clientId: override?.clientId ?? valueSource(auth.clientId),
        clientSecret: override?.clientSecret ?? valueSource(auth.clientSecret),
      };
  }
}

function placeArguments({
  action,
  method,
  pointer,
  converter,
  report,
}: {
  action: ActionSpec;
  method: HttpMethod;
  pointer: string;
  converter: SchemaConverter;
  report: (d: Omit<Diagnostic, "file">) => void;
}): { schema: JsonObjectSchema; parameters: Record<ParameterLocation, ParameterBinding[]>; body?: RequestBodyBinding } {
  const rawInput = action.inputSchema ?? { type: "object", properties: {} };
  const converted = converter.convert(rawInput, { direction: "input", pointer: `${pointer}/inputSchema`, inline: true });
  const schema: Record<string, unknown> = typeof converted === "object" ? { ...converted } : {};
  if (schema.type !== undefined && schema.type !== "object") {
    report({ severity: "error", code: "input-not-object", pointer: `${pointer}/inputSchema`, message: `inputSchema must describe an object (found type ${JSON.stringify(schema.type)})` });
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

  const placeholders = new Set([...action.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!));
  for (const name of placeholders) {
    if (!Object.hasOwn(properties, name)) {
      report({ severity: "error", code: "undeclared-path-parameter", pointer: `${pointer}/path`, message: `path placeholder {${name}} has no property in inputSchema` });
    } else if (!required.has(name)) {
      required.add(name); // a path cannot be built without it
    }
  }
  for (const name of Object.keys(action.in ?? {})) {
    if (!Object.hasOwn(properties, name)) report({ severity: "warning", code: "unknown-argument", pointer: `${pointer}/in/${name}`, message: `'in' places '${name}', which inputSchema does not declare` });
  }

  const argumentOf = actionArguments({ names: Object.keys(properties), pointer, report });
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
      report({ severity: "error", code: "reserved-header", pointer: `${pointer}/in/${name}`, message: `'${placement.name ?? name}' is set by HTTP or by openapi-mcp; an argument cannot be sent as that header` });
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
  if (required.size > 0) schema.required = [...required].map((name) => (Object.hasOwn(properties, name) ? argumentOf(name) : name));

  let body: RequestBodyBinding | undefined;
  if (bodyFields.length > 0) {
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
    body = {
      mediaType,
      kind: bodyKind(mediaType),
      required: bodyFields.some((name) => required.has(name)),
      fields: bodyFields.map(argumentOf),
      ...(renamed.length > 0 ? { fieldNames: Object.fromEntries(renamed.map((name) => [argumentOf(name), name])) } : {}),
      ...(Object.keys(encoding).length > 0 ? { encoding } : {}),
    };
  }
  // The input schema's properties under their argument names (the same, unless a client could not carry one).
  schema.properties = Object.fromEntries(Object.entries(properties).map(([name, property]) => [argumentOf(name), property]));
  return { schema: schema as JsonObjectSchema, parameters, ...(body ? { body } : {}) };
}

/** Each property's argument name: its own, or a safe one for a name no client can carry (reported). */
function actionArguments({ names, pointer, report }: { names: string[]; pointer: string; report: (d: Omit<Diagnostic, "file">) => void }): (name: string) => string {
  const claimed = new ArgumentNames();
  const argumentOf = new Map<string, string>();
  for (const name of names) if (isSafeArgument(name)) argumentOf.set(name, claimed.claim(name));
  for (const name of names) {
    if (argumentOf.has(name)) continue;
    const argument = claimed.claim(safeArgument(name));
    argumentOf.set(name, argument);
    report({ severity: "warning", code: "argument-renamed", pointer: joinPointer(`${pointer}/inputSchema/properties`, name), message: renamedMessage({ kind: "property", name, argument }) });
  }
  return (name) => argumentOf.get(name) ?? name;
}
