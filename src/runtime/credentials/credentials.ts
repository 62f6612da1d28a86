// Credentials, applied to a prepared request from the environment: the model never sees them. The first
// alternative of the tool's security requirement whose values are all configured is used; for OAuth 2.0 client
// credentials that means fetching (or reusing) an access token, so applying is asynchronous.

import type { Catalog, CredentialScheme, SecurityRequirement, ValueSource } from "../../catalog/types.js";
import { sharedTokenProvider, type TokenSource } from "./oauth.js";
import { type Expanded, SecretSources } from "../secrets/secret-sources.js";
import type { Caller, PreparedRequest } from "../types.js";
import { type UserCredentialMap, type UserCredentials, UserCredentialsMissing } from "./user-credentials.js";

export type Environment = Record<string, string | undefined>;

function resolveValue(source: ValueSource, env: Environment): string | undefined {
  const value = "env" in source ? env[source.env] : source.value;
  return value === undefined || value === "" ? undefined : value;
}

interface Contribution {
  in: "header" | "query" | "cookie";
  name: string;
  value: string;
  /** The secret values within (a basic header's encoded pair counts as well as the password). */
  secrets: string[];
  /** The OAuth 2.0 access token carried, to drop if the API refuses it. */
  token?: string;
  /** Forgets a per-user value the API refused, so the next call obtains a fresh one. */
  forget?: () => void;
  /** Set when the value only says what is not set (a dry run without credentials). */
  placeholder?: string;
  /** What `${file:…}` and `${cmd:…}` references in its values gave. */
  expanded?: Expanded[];
}

/** A scheme whose values are all configured: what it adds, once any token it needs is at hand. */
type Pending = () => Promise<Contribution[]>;

/** How a scheme would be applied, or undefined when its values are not configured (or it cannot be applied). */
interface PlanContext {
  env: Environment;
  secrets: SecretSources;
  tokens: TokenSource;
  signal: AbortSignal | undefined;
  user: PerUser | undefined;
  /** Nothing is sent anywhere: no token fetched, no credential process run, no per-user value obtained. */
  dryRun: boolean;
}

/** A scheme of the alternative being planned, under its catalog id, with the scopes the operation asks for. */
interface PlannedScheme {
  id: string;
  scheme: CredentialScheme;
  scopes: string[];
}

/** The per-user credentials of a call and who makes it. */
interface PerUser {
  credentials: UserCredentialMap;
  caller: Caller | undefined;
}

function plan({ id, scheme, scopes }: PlannedScheme, context: PlanContext): Pending | undefined {
  const { env, tokens, signal, user, secrets, dryRun } = context;
  const perUser = user && Object.hasOwn(user.credentials, id) ? user.credentials[id] : undefined;
  if (perUser && dryRun)
    return placeholderPlan(scheme, env, "<the caller's own credential, not obtained on a dry run>");
  if (perUser) return userPlan({ scheme, scopes, perUser, caller: user?.caller, signal });
  const expand = (texts: string[]) => expandAll({ texts, secrets, dryRun });
  switch (scheme.type) {
    case "apiKey": {
      const text = resolveValue(scheme.value, env);
      if (text === undefined) return undefined;
      return async () => {
        const { value, expanded, placeholder } = await expand([text]);
        return [
          { in: scheme.in, name: scheme.parameter, value: value[0]!, secrets: [value[0]!], expanded, ...placeholder },
        ];
      };
    }
    case "bearer": {
      const text = resolveValue(scheme.token, env);
      if (text === undefined) return undefined;
      return async () => {
        const { value, expanded, placeholder } = await expand([text]);
        const token = value[0]!;
        return [
          { in: "header", name: "authorization", value: `Bearer ${token}`, secrets: [token], expanded, ...placeholder },
        ];
      };
    }
    case "basic": {
      const usernameText = resolveValue(scheme.username, env);
      const passwordText = resolveValue(scheme.password, env);
      if (usernameText === undefined || passwordText === undefined) return undefined;
      return async () => {
        const { value, expanded } = await expand([usernameText, passwordText]);
        const [username, password] = value as [string, string];
        const pair = `${username}:${password}`;
        const header = `Basic ${Buffer.from(pair).toString("base64")}`;
        return [{ in: "header", name: "authorization", value: header, secrets: [password, pair], expanded }];
      };
    }
    case "oauth2": {
      const clientIdText = resolveValue(scheme.clientId, env);
      const clientSecretText = resolveValue(scheme.clientSecret, env);
      if (clientIdText === undefined || clientSecretText === undefined) return undefined;
      // The scopes the operation asks for; when it names none, those configured for the scheme.
      const requested = scopes.length > 0 ? scopes : scheme.scopes;
      return async () => {
        const { value, expanded } = await expand([clientIdText, clientSecretText]);
        const [clientId, clientSecret] = value as [string, string];
        if (dryRun) {
          // A dry run sends nothing, to the token endpoint neither: the request shows where the token would come from.
          const placeholder = `<access token from ${scheme.tokenUrl}, not fetched on a dry run>`;
          return [
            {
              in: "header",
              name: "authorization",
              value: `Bearer ${placeholder}`,
              secrets: [clientSecret],
              expanded,
              placeholder,
            },
          ];
        }
        const token = await tokens.token(
          { tokenUrl: scheme.tokenUrl, clientId, clientSecret, scopes: requested },
          signal ? { signal } : {},
        );
        return [
          {
            in: "header",
            name: "authorization",
            value: `Bearer ${token.value}`,
            secrets: [token.value, clientSecret],
            token: token.value,
            expanded,
          },
        ];
      };
    }
    default:
      // Unsupported schemes never apply.
      return undefined;
  }
}

/**
 * Values with their `${file:…}`/`${cmd:…}` references resolved (SecretUnavailable when one cannot be had); on a
 * dry run a credential process is not run, and `placeholder` is the one value that shows a placeholder.
 */
async function expandAll({
  texts,
  secrets,
  dryRun,
}: {
  texts: string[];
  secrets: SecretSources;
  dryRun: boolean;
}): Promise<{ value: string[]; expanded: Expanded[]; placeholder?: { placeholder: string } }> {
  const expanded = await Promise.all(texts.map((text) => secrets.expand(text, { dryRun })));
  const value = expanded.map((e) => e.value);
  const shown = expanded.findIndex((e) => e.placeholders.length > 0);
  return { value, expanded, ...(shown >= 0 ? { placeholder: { placeholder: value[shown]! } } : {}) };
}

let shared: SecretSources | undefined;
/** Files only (no credential processes): for engines built without settings. */
export function sharedSecretSources(): SecretSources {
  shared ??= new SecretSources();
  return shared;
}

/** A per-user scheme: the caller's value, placed as the scheme says; no value stops the call (UserCredentialsMissing). */
function userPlan({
  scheme,
  scopes,
  perUser,
  caller,
  signal,
}: {
  scheme: CredentialScheme;
  scopes: string[];
  perUser: UserCredentials;
  caller: Caller | undefined;
  signal: AbortSignal | undefined;
}): Pending {
  return async () => {
    const given = await perUser.valueFor({ caller, scopes, ...(signal ? { signal } : {}) });
    if ("missing" in given) throw new UserCredentialsMissing(given.missing, given.signIn);
    const { value } = given;
    switch (scheme.type) {
      case "apiKey":
        return [{ in: scheme.in, name: scheme.parameter, value, secrets: [value] }];
      case "basic": {
        const header = `Basic ${Buffer.from(value).toString("base64")}`;
        return [{ in: "header", name: "authorization", value: header, secrets: [value, header] }];
      }
      default: {
        const forget = caller && perUser.invalidate ? () => perUser.invalidate?.({ caller, value }) : undefined;
        const header = `Bearer ${value}`;
        return [
          { in: "header", name: "authorization", value: header, secrets: [value], ...(forget ? { forget } : {}) },
        ];
      }
    }
  };
}

export interface AppliedCredentials {
  request: PreparedRequest;
  /** Every secret value the request now carries (access tokens included), to be masked wherever they show. */
  secrets: string[];
  /**
   * Set when an OAuth 2.0 access token was used: drops it from the cache, so that applying the credentials again
   * fetches a fresh one. For the single refresh-and-retry after the API answers 401.
   */
  invalidate?: () => void;
  /** What stands where an unset value would go (`<API_KEY_X is not set>`), when placeholders were asked for. */
  placeholders?: string[];
  /** The `${file:…}`/`${cmd:…}` references the values came from (for the audit line; never the values). */
  references?: string[];
}

/**
 * The request with credentials added. Rejects with a `TokenError` (an `OpenApiMcpError`) when an OAuth 2.0 token is
 * needed and cannot be had; no alternative configured → the request unchanged (the API will say what it lacks).
 */
export async function applyCredentials({
  request,
  security,
  credentials,
  env,
  tokens = sharedTokenProvider(),
  secretSources = sharedSecretSources(),
  signal,
  placeholders = false,
  dryRun = false,
  userCredentials,
  caller,
}: {
  request: PreparedRequest;
  security: SecurityRequirement[];
  credentials: Record<string, CredentialScheme>;
  env: Environment;
  /** Schemes whose value depends on the caller (user-credentials.ts), by scheme id: they win over `env`. */
  userCredentials?: UserCredentialMap;
  /** Who makes the call, for those schemes. */
  caller?: Caller;
  /** Where OAuth 2.0 access tokens come from (default: one provider shared by the process). */
  tokens?: TokenSource;
  /** Where `${file:…}` and `${cmd:…}` references are resolved. */
  secretSources?: SecretSources;
  /** Stops waiting for a token (the call was cancelled). */
  signal?: AbortSignal;
  /**
   * For a dry run: when no alternative is configured, the first that could apply is shown with a placeholder saying
   * what is not set where each missing value would go.
   */
  placeholders?: boolean;
  /** Nothing is sent anywhere: no OAuth token fetched, no credential process run, no per-user value obtained. */
  dryRun?: boolean;
}): Promise<AppliedCredentials> {
  const schemeOf = (id: string): CredentialScheme | undefined =>
    Object.hasOwn(credentials, id) ? credentials[id] : undefined;
  const user = userCredentials ? { credentials: userCredentials, caller } : undefined;
  const context: PlanContext = { env, tokens, secrets: secretSources, signal, user, dryRun };
  let chosen: Pending[] | undefined;
  for (const alternative of security) {
    const plans = alternative.schemes.map((s) => {
      const scheme = schemeOf(s.id);
      return scheme ? plan({ id: s.id, scheme, scopes: s.scopes }, context) : undefined;
    });
    if (plans.some((p) => p === undefined)) continue;
    chosen = plans as Pending[];
    break;
  }
  if (!chosen && placeholders) {
    const usable = security.find((a) =>
      a.schemes.every((s) => schemeOf(s.id) !== undefined && schemeOf(s.id)!.type !== "unsupported"),
    );
    chosen = usable?.schemes.map((s) => {
      const scheme = schemeOf(s.id)!;
      return plan({ id: s.id, scheme, scopes: s.scopes }, context) ?? placeholderPlan(scheme, env);
    });
  }
  if (chosen) {
    const parts = (await Promise.all(chosen.map((p) => p()))).flat();
    const headers = { ...request.headers };
    let path = request.path;
    const secrets: string[] = [];
    const used: string[] = [];
    const forgets: Array<() => void> = [];
    const references = new Set<string>();
    for (const part of parts) {
      secrets.push(...part.secrets);
      for (const expanded of part.expanded ?? []) {
        for (const reference of expanded.references) references.add(reference);
        secrets.push(...expanded.values);
        // A credential process's value the API refuses is dropped: the one retry runs the command again.
        if (expanded.commands.length > 0) forgets.push(() => context.secrets.forget(expanded.commands));
      }
      if (part.token !== undefined) used.push(part.token);
      if (part.forget) forgets.push(part.forget);
      if (part.in === "header") headers[part.name.toLowerCase()] = part.value;
      else if (part.in === "cookie")
        headers.cookie = [headers.cookie, `${part.name}=${encodeURIComponent(part.value)}`].filter(Boolean).join("; ");
      else
        path += `${path.includes("?") ? "&" : "?"}${encodeURIComponent(part.name)}=${encodeURIComponent(part.value)}`;
    }
    const applied: AppliedCredentials = { request: { ...request, headers, path }, secrets };
    if (references.size > 0) applied.references = [...references];
    if (used.length > 0 || forgets.length > 0) {
      applied.invalidate = () => {
        for (const token of used) tokens.invalidate(token);
        for (const forget of forgets) forget();
      };
    }
    const shown = parts.flatMap((part) => (part.placeholder ? [part.placeholder] : []));
    if (shown.length > 0) applied.placeholders = shown;
    return applied;
  }
  return { request, secrets: [] };
}

/**
 * A scheme whose values are not all set, shown as what is missing: `Bearer <BEARER_TOKEN_X is not set>`; or, given
 * `text`, what stands for a value a dry run does not obtain.
 */
function placeholderPlan(scheme: CredentialScheme, env: Environment, given?: string): Pending {
  const unset = unsetVariables(scheme, env) ?? [];
  const text =
    given ??
    (unset.length === 0
      ? `<security scheme '${scheme.name}' has no value>`
      : `<${joinAnd(unset)} ${unset.length === 1 ? "is" : "are"} not set>`);
  const header = (prefix: string): Contribution => ({
    in: "header",
    name: "authorization",
    value: `${prefix} ${text}`,
    secrets: [],
    placeholder: text,
  });
  switch (scheme.type) {
    case "apiKey":
      return async () => [{ in: scheme.in, name: scheme.parameter, value: text, secrets: [], placeholder: text }];
    case "basic":
      return async () => [header("Basic")];
    default:
      return async () => [header("Bearer")];
  }
}

/** A scheme of one alternative that is not configured, with the variables to set. */
export interface MissingScheme {
  /** The scheme's id in the catalog (`cars.api_key` in a manifest). */
  scheme: string;
  /** Its name in its source. */
  name: string;
  /** The unset (or empty) environment variables it reads; empty when a literal value is empty. */
  variables: string[];
}

/** Tools that cannot be called with the environment as it is: any one alternative, once configured, would do. */
export interface MissingCredentials {
  tools: string[];
  /** Each alternative lists only what it still lacks; alternatives that could never apply are left out. */
  alternatives: MissingScheme[][];
}

/**
 * What must be set before the server can call every tool: for each tool whose security requirement has no empty
 * alternative (`{}`, no credentials needed) and no alternative fully configured, the unset variables of each
 * alternative. Tools with the same requirement are grouped. Alternatives with a scheme that can never be applied
 * (unsupported or undefined) are left out, and a tool with nothing else is not reported: the loader has warned.
 */
export function missingCredentials(
  catalog: Pick<Catalog, "tools" | "credentials">,
  env: Environment,
  { userCredentials = {} }: { userCredentials?: UserCredentialMap } = {},
): MissingCredentials[] {
  const groups = new Map<string, MissingCredentials>();
  for (const tool of catalog.tools) {
    const security = tool.operation.security;
    if (security.length === 0 || security.some((a) => a.schemes.length === 0)) continue;
    const alternatives: MissingScheme[][] = [];
    let satisfied = false;
    for (const alternative of security) {
      const schemes = alternative.schemes.map((s) => ({
        id: s.id,
        scheme: Object.hasOwn(catalog.credentials, s.id) ? catalog.credentials[s.id] : undefined,
      }));
      if (schemes.some((s) => s.scheme === undefined || s.scheme.type === "unsupported")) continue;
      const lacking = schemes.flatMap(({ id, scheme }) => {
        // A per-user scheme is configured; whether this caller has a value is asked when the call is made.
        if (Object.hasOwn(userCredentials, id)) return [];
        const variables = unsetVariables(scheme!, env);
        return variables === undefined ? [] : [{ scheme: id, name: scheme!.name, variables }];
      });
      if (lacking.length === 0) {
        satisfied = true;
        break;
      }
      alternatives.push(lacking);
    }
    if (satisfied || alternatives.length === 0) continue;
    const key = JSON.stringify(alternatives);
    const group = groups.get(key);
    if (group) group.tools.push(tool.name);
    else groups.set(key, { tools: [tool.name], alternatives });
  }
  return [...groups.values()];
}

/** The variables of a scheme that are unset, or undefined when it is fully configured. */
function unsetVariables(scheme: CredentialScheme, env: Environment): string[] | undefined {
  const sources: ValueSource[] =
    scheme.type === "apiKey"
      ? [scheme.value]
      : scheme.type === "bearer"
        ? [scheme.token]
        : scheme.type === "basic"
          ? [scheme.username, scheme.password]
          : scheme.type === "oauth2"
            ? [scheme.clientId, scheme.clientSecret]
            : [];
  const unset = sources.filter((source) => resolveValue(source, env) === undefined);
  if (unset.length === 0) return undefined;
  return unset.flatMap((source) => ("env" in source ? [source.env] : []));
}

/**
 * One message for a startup error: each group of tools and what would let them be called. E.g.
 * `listPets, getPet: set API_KEY_PETSTORE (security scheme 'api_key'), or set OAUTH_CLIENT_ID_AUTH and
 * OAUTH_CLIENT_SECRET_AUTH (security scheme 'auth')`.
 */
export function describeMissingCredentials(
  missing: MissingCredentials[],
  { maxTools = 5 }: { maxTools?: number } = {},
): string {
  return missing
    .map(({ tools, alternatives }) => {
      const shown =
        tools.length > maxTools
          ? `${tools.slice(0, maxTools).join(", ")} and ${tools.length - maxTools} more tools`
          : tools.join(", ");
      return `${shown}: ${describeAlternatives(alternatives)}`;
    })
    .join("\n");
}

/** What would let a tool be called: `set A (security scheme 'a'), or set B and C (security scheme 'b')`. */
export function describeAlternatives(alternatives: MissingScheme[][]): string {
  const ways = alternatives.map((alternative) =>
    alternative
      .map(({ name, variables }) =>
        variables.length > 0
          ? `set ${joinAnd(variables)} (security scheme '${name}')`
          : `give security scheme '${name}' a non-empty value`,
      )
      .join(" and "),
  );
  return ways.join(", or ");
}

function joinAnd(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
