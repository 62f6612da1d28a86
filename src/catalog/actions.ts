// Tools from a custom action definition (already validated against schemas/action-definition.schema.json); their
// arguments are placed by action-arguments.ts.

import { placeArguments } from "./action-arguments.js";
import type { ActionDefinition, ActionSpec } from "./action-definition.js";
import { addSourceCredentials, credentialIds, definedNames, everyToolRequirement } from "./auth.js";
import type { CatalogBuilder, SourceSettings } from "./builder.js";
import { describeTool, titleFor } from "./builder.js";
import { annotationsFor, sideEffectOf } from "./effects.js";
import { baseToolName, holdOwnNames, type NameChoice } from "./naming.js";
import { asObjectSchema } from "./outputs.js";
import type { SchemaConverter } from "./schema/convert.js";
import type { CredentialOverride } from "./security.js";
import { addSourceTool, descriptionOr, toolReport } from "./tool-builder.js";
import type { CredentialScheme, HttpMethod, SecurityRequirement, ValueSource } from "./types.js";

export interface ActionSource extends SourceSettings {
  kind: "actions";
  file: string;
  definition: ActionDefinition;
}

const VARIABLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** `${VAR}` → `{ env: "VAR" }`; anything else is a literal (allowed only where the schema allows it). */
export function valueSource(text: string): ValueSource {
  const match = VARIABLE.exec(text);
  return match ? { env: match[1]! } : { value: text };
}

export function addActionSource(builder: CatalogBuilder, source: ActionSource): void {
  const { definition, id, file } = source;
  const security = actionSecurity({ builder, source });
  const converter = builder.schemaConverter({ root: definition, dialect: "jsonschema", file, id });
  builder.sources.push({
    id,
    kind: "actions",
    format: "action definition",
    title: definition.description ?? definition.name,
    version: definition.version === undefined ? "" : String(definition.version),
    location: file,
    ...((source.rateLimit ?? definition.rateLimit) ? { rateLimit: (source.rateLimit ?? definition.rateLimit)! } : {}),
    ...(source.inFlight ? { inFlight: source.inFlight } : {}),
  });
  for (const accepted of acceptedActions({ builder, source }))
    addActionTool({ builder, source, accepted, security, converter });
}

/** The definition's one credential (named after it), auth entries applied: what every action of it sends. */
function actionSecurity({ builder, source }: { builder: CatalogBuilder; source: ActionSource }): SecurityRequirement[] {
  const { definition, id, file } = source;
  const credentialId = credentialIds(id);
  // Unless an auth entry defines it anew.
  const own = definedNames(source.auth).has(definition.name)
    ? undefined
    : credentialFor({ definition, override: source.auth?.[definition.name] });
  const { credentials, everyTool } = addSourceCredentials({
    builder,
    source,
    file,
    declared: own ? { [definition.name]: own } : {},
    declaredNames: definition.auth && definition.auth.type !== "none" ? [definition.name] : [],
  });
  if (everyTool) return everyToolRequirement(everyTool, credentialId);
  const credential = Object.hasOwn(credentials, definition.name) ? credentials[definition.name] : undefined;
  return credential
    ? [
        {
          schemes: [
            { id: credentialId(definition.name), scopes: credential.type === "oauth2" ? credential.scopes : [] },
          ],
        },
      ]
    : [];
}

interface AcceptedAction {
  action: ActionSpec;
  index: number;
  method: HttpMethod;
  choice: NameChoice;
  tags: string[];
}

/** The actions the filters pass, with their tools' names held. */
function acceptedActions({ builder, source }: { builder: CatalogBuilder; source: ActionSource }): AcceptedAction[] {
  const accepted = source.definition.actions.flatMap((action, index) => {
    const method = action.method.toUpperCase() as HttpMethod;
    const choice = baseToolName({ operationId: action.name, method, path: action.path, namespace: source.id });
    const tags = action.tags ?? [];
    if (
      !builder.accepts({ tags, operationId: action.name, name: choice.name, path: action.path, method }, source.filters)
    )
      return [];
    return [{ action, index, method, choice, tags }];
  });
  holdOwnNames({
    candidates: accepted.map(({ method, action, choice }) => ({ choice, salt: `${method} ${action.path}` })),
    hold: (name, salt) => builder.holdName(name, salt),
  });
  return accepted;
}

function addActionTool({
  builder,
  source: { definition, id, file, baseUrl },
  accepted: { action, index, method, choice, tags },
  security,
  converter,
}: {
  builder: CatalogBuilder;
  source: ActionSource;
  accepted: AcceptedAction;
  security: SecurityRequirement[];
  converter: SchemaConverter;
}): void {
  const pointer = `/actions/${index}`;
  const report = toolReport({ builder, file, tool: choice.name });
  const inputs = placeArguments({ action, method, pointer, converter, report });
  const output =
    action.outputSchema === undefined
      ? undefined
      : asObjectSchema(
          converter.convert(action.outputSchema, {
            direction: "output",
            pointer: `${pointer}/outputSchema`,
            inline: true,
          }),
          builder.definitions,
        );
  const description = descriptionOr({
    description: describeTool({ ...(action.description !== undefined ? { description: action.description } : {}) }),
    request: { method, path: action.path },
    missing: { pointer, message: `action '${action.name}' has no description; the model sees only its name` },
    report,
  });
  const title = action.title ?? titleFor({ name: choice.name });
  addSourceTool({
    builder,
    parts: {
      name: choice.name,
      title,
      description,
      inputs,
      output: { ...output, accept: output ? ["application/json"] : [] },
      effect: sideEffectOf(method),
      annotations: annotationsFor({ method, title }),
      approval: action.approval,
      request: {
        method,
        serverUrl: baseUrl ?? definition.baseUrl.replace(/\/+$/, ""),
        path: action.path,
        headers: { ...definition.headers, ...action.headers },
        security,
        rateLimit: action.rateLimit,
      },
      source: id,
      origin: { file, pointer, operationId: action.name, tags },
    },
  });
}

function credentialFor({
  definition,
  override,
}: {
  definition: ActionDefinition;
  override: CredentialOverride | undefined;
}): CredentialScheme | undefined {
  const auth = definition.auth;
  if (!auth || auth.type === "none") return undefined;
  const name = definition.name;
  switch (auth.type) {
    case "apiKey":
      return {
        name,
        type: "apiKey",
        in: auth.in,
        parameter: auth.name,
        value: override?.value ?? valueSource(auth.value),
      };
    case "bearer":
      return { name, type: "bearer", token: override?.value ?? valueSource(auth.token) };
    case "basic":
      return {
        name,
        type: "basic",
        username: override?.username ?? valueSource(auth.username),
        password: override?.password ?? valueSource(auth.password),
      };
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
