// Security schemes become a small union of credential kinds, each naming the environment variables its values
// come from: API_KEY_<SCHEME>, BEARER_TOKEN_<SCHEME>, BASIC_USERNAME_/BASIC_PASSWORD_<SCHEME>,
// OAUTH_CLIENT_ID_/OAUTH_CLIENT_SECRET_<SCHEME>, unless a definition or manifest names others.

import type { ApiSecurityScheme } from "./document.js";
import { defineOwn } from "./own.js";
import { joinPointer } from "./pointer.js";
import type { CredentialScheme, Diagnostic, SecurityRequirement, ValueSource } from "./types.js";

/**
 * What a manifest, settings file or `--auth` gives for a scheme: values replacing the convention's variables, and,
 * with a `type`, the scheme itself (see auth.ts).
 */
export interface CredentialOverride {
  type?: "apiKey" | "bearer" | "basic" | "oauth2";
  /** apiKey: where the key goes, and the header, query parameter or cookie name. */
  in?: "header" | "query" | "cookie";
  parameter?: string;
  /** Sent by every tool of the source whatever its name, replacing the document's requirements (`--auth`). */
  everyTool?: boolean;
  description?: string;
  /** Where the entry was written, for messages. */
  place?: { file: string; pointer?: string };
  value?: ValueSource;
  username?: ValueSource;
  password?: ValueSource;
  clientId?: ValueSource;
  clientSecret?: ValueSource;
  tokenUrl?: string;
  scopes?: string[];
}

/** `petstore-auth` → `PETSTORE_AUTH`. */
export function envSuffix(schemeName: string): string {
  return schemeName.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

export function credentialsFromDocument({
  schemes,
  envName,
  overrides = {},
  file,
}: {
  schemes: Record<string, ApiSecurityScheme>;
  /** The scheme name the convention's variables are built from (prefixed by the source id in a manifest). */
  envName: (schemeName: string) => string;
  overrides?: Record<string, CredentialOverride>;
  file: string;
}): { credentials: Record<string, CredentialScheme>; diagnostics: Diagnostic[] } {
  const credentials: Record<string, CredentialScheme> = {};
  const diagnostics: Diagnostic[] = [];
  for (const [name, scheme] of Object.entries(schemes)) {
    const suffix = envSuffix(envName(name));
    const { credential, warning } = credentialOf({
      base: { name, ...(scheme.description ? { description: scheme.description } : {}) },
      scheme,
      override: overrides[name] ?? {},
      env: (prefix) => ({ env: `${prefix}_${suffix}` }),
    });
    if (warning)
      diagnostics.push({
        severity: "warning",
        code: "token-from-environment",
        message: `security scheme '${name}' ${warning}`,
        file,
      });
    if (credential.type === "unsupported") {
      diagnostics.push({
        severity: "warning",
        code: "unsupported-security",
        message: `security scheme '${name}': ${credential.reason}; calls that need it cannot be authenticated`,
        file,
      });
    }
    defineOwn(credentials, name, credential);
  }
  return { credentials, diagnostics };
}

/** What one scheme of the document needs to be sent, and what the conventional variables and overrides provide. */
interface SchemeInput<Scheme extends ApiSecurityScheme = ApiSecurityScheme> {
  base: { name: string; description?: string };
  scheme: Scheme;
  override: CredentialOverride;
  /** The conventional variable of a value: `<PREFIX>_<SCHEME>`. */
  env: (prefix: string) => ValueSource;
}

/** The credential of one scheme; `warning` when the token it sends must be obtained elsewhere. */
function credentialOf(input: SchemeInput): { credential: CredentialScheme; warning?: string } {
  const { base, scheme, override, env } = input;
  switch (scheme.type) {
    case "apiKey":
      return {
        credential: {
          ...base,
          type: "apiKey",
          in: scheme.in,
          parameter: scheme.name,
          value: override.value ?? env("API_KEY"),
        },
      };
    case "http":
      return { credential: httpCredential({ ...input, scheme }) };
    case "oauth2":
      return oauth2Credential({ ...input, scheme });
    case "openIdConnect":
      return tokenFromEnvironment({ ...input, why: "is OpenID Connect" });
    default:
      return { credential: { ...base, type: "unsupported", reason: scheme.reason } };
  }
}

function httpCredential({
  base,
  scheme,
  override,
  env,
}: SchemeInput<Extract<ApiSecurityScheme, { type: "http" }>>): CredentialScheme {
  const kind = scheme.scheme.toLowerCase();
  if (kind === "bearer") return { ...base, type: "bearer", token: override.value ?? env("BEARER_TOKEN") };
  if (kind === "basic")
    return {
      ...base,
      type: "basic",
      username: override.username ?? env("BASIC_USERNAME"),
      password: override.password ?? env("BASIC_PASSWORD"),
    };
  return { ...base, type: "unsupported", reason: `HTTP authentication scheme '${scheme.scheme}' is not supported` };
}

/** Client credentials when there is a token URL; other flows need a person to sign in, so a token is read instead. */
function oauth2Credential(input: SchemeInput<Extract<ApiSecurityScheme, { type: "oauth2" }>>): {
  credential: CredentialScheme;
  warning?: string;
} {
  const { base, scheme, override, env } = input;
  const flow = scheme.clientCredentials;
  const tokenUrl = override.tokenUrl ?? flow?.tokenUrl;
  if (!tokenUrl)
    return tokenFromEnvironment({
      ...input,
      why: `uses OAuth 2.0 ${scheme.flows.join("/") || "flows"} that need a person to sign in`,
    });
  return {
    credential: {
      ...base,
      type: "oauth2",
      tokenUrl,
      scopes: override.scopes ?? flow?.scopes ?? [],
      clientId: override.clientId ?? env("OAUTH_CLIENT_ID"),
      clientSecret: override.clientSecret ?? env("OAUTH_CLIENT_SECRET"),
      ...(scheme.authorizationCode ? { authorizationCode: scheme.authorizationCode } : {}),
    },
  };
}

/** A bearer token obtained elsewhere, and the warning that says where it is read from. */
function tokenFromEnvironment({ base, override, env, why, scheme }: SchemeInput & { why: string }): {
  credential: CredentialScheme;
  warning: string;
} {
  const token = override.value ?? env("BEARER_TOKEN");
  const code = scheme.type === "oauth2" ? scheme.authorizationCode : undefined;
  return {
    credential: { ...base, type: "bearer", token, ...(code ? { authorizationCode: code } : {}) },
    warning: `${why}; an access token obtained elsewhere is read from ${describeSource(token)}`,
  };
}

/** Requirement objects (OR of ANDs) as scheme ids; alternatives naming an undefined scheme are dropped. */
export function normalizeRequirements({
  requirements,
  known,
  idOf,
  onUnknown,
}: {
  requirements: Array<Record<string, string[]>>;
  known: Record<string, CredentialScheme>;
  idOf: (schemeName: string) => string;
  onUnknown: (schemeName: string) => void;
}): SecurityRequirement[] {
  const result: SecurityRequirement[] = [];
  for (const requirement of requirements) {
    const names = Object.keys(requirement);
    const unknown = names.filter((name) => !Object.hasOwn(known, name));
    if (unknown.length > 0) {
      for (const name of unknown) onUnknown(name);
      continue;
    }
    result.push({
      schemes: names.map((name) => ({
        id: idOf(name),
        scopes: Array.isArray(requirement[name]) ? requirement[name] : [],
      })),
    });
  }
  return result;
}

export function describeSource(source: ValueSource): string {
  return "env" in source ? `$${source.env}` : "a literal value";
}

/** A scheme in a few words, for people: `API key in header X-API-Key`, `bearer token`, … */
export function describeCredential(credential: CredentialScheme): string {
  switch (credential.type) {
    case "apiKey":
      return `API key in ${credential.in} ${credential.parameter}`;
    case "bearer":
      return "bearer token";
    case "basic":
      return "HTTP basic";
    case "oauth2":
      return `OAuth 2.0 client credentials at ${credential.tokenUrl}`;
    case "unsupported":
      return `not supported: ${credential.reason}`;
  }
}

/** Every environment variable a credential reads. */
export function credentialVariables(credential: CredentialScheme): string[] {
  const sources: ValueSource[] = [];
  switch (credential.type) {
    case "apiKey":
      sources.push(credential.value);
      break;
    case "bearer":
      sources.push(credential.token);
      break;
    case "basic":
      sources.push(credential.username, credential.password);
      break;
    case "oauth2":
      sources.push(credential.clientId, credential.clientSecret);
      break;
  }
  return sources.flatMap((source) => ("env" in source ? [source.env] : []));
}

/** Errors for auth mappings that name no scheme of the source: a typo there would silently use other variables. */
export function unknownAuthMappings({
  overrides,
  known,
  file,
  place,
}: {
  overrides: Record<string, CredentialOverride> | undefined;
  known: string[];
  /** The source, for the message. */
  file: string;
  /** Where the mapping was written (a manifest's `auth`), if not in the source itself. */
  place?: { file: string; pointer: string };
}): Diagnostic[] {
  return Object.entries(overrides ?? {})
    .filter(([name]) => !known.includes(name))
    .map(([name, override]) => ({
      severity: "error" as const,
      code: "unknown-auth-scheme",
      message: `auth names scheme '${name}', which ${file} does not define (it defines: ${known.join(", ") || "none"}); to add a scheme, give the entry a type (bearer, apiKey, basic or oauth2), or use --auth`,
      ...(override.place ?? {
        file: place?.file ?? file,
        ...(place ? { pointer: joinPointer(place.pointer, name) } : {}),
      }),
    }));
}
