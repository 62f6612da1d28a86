// What a tool reads to be called, and where it sends it: the environment variables of its security schemes (written
// as `${VAR}`, given by a manifest's or settings file's `auth`, or derived from the scheme's name: API_KEY_<…>),
// the `${file:…}`/`${cmd:…}` references written in their values and in its static headers, and the token URLs its
// OAuth schemes post a client secret to. A registry source may read only what is assigned to its namespace
// (secret-assignments.ts): the loader reports these at check time, the engine refuses them before a call.

import type { SecretAssignments } from "./secret-assignments.js";
import type { CredentialScheme, Tool, ValueSource } from "./types.js";

/** `${file:PATH}` and `${cmd:NAME}` (runtime/secrets/secret-references.ts reads them). */
export const SECRET_REFERENCE = /\$\{(file|cmd):([^}]+)\}/g;
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The references written in a text: `file:/run/secrets/key`, `cmd:vault`. */
export function secretReferencesIn(text: string): string[] {
  return [...text.matchAll(SECRET_REFERENCE)].map((match) => `${match[1]}:${match[2]}`);
}

/** The `${VAR}` names in a text. */
export function variablesIn(text: string): string[] {
  return [...text.matchAll(VARIABLE)].map((match) => match[1]!);
}

/** One thing a tool reads, and where it comes from (for messages and places). */
export interface SecretRead {
  /** `NAME` (an environment variable), `file:/path` or `cmd:NAME`. */
  reference: string;
  /** The scheme id and its field (`value`, `clientSecret`…), or the static header, that reads it. */
  from: { scheme: string; field: string } | { header: string };
}

export interface ToolSecrets {
  reads: SecretRead[];
  /** The token URLs its OAuth 2.0 client-credentials schemes send their client secret to. */
  tokenUrls: Array<{ scheme: string; url: string }>;
  /** Whether its requests may carry a credential (a scheme, or a static header naming a variable or secret). */
  carries: boolean;
}

/** Everything `tool` may read, over every alternative of its security requirement and its static headers. */
export function toolSecrets({
  tool,
  credentials,
  assignments,
}: {
  tool: Tool;
  credentials: Record<string, CredentialScheme>;
  /** Knows the schemes whose value each caller brings (no variable of theirs is read). */
  assignments?: SecretAssignments;
}): ToolSecrets {
  const reads: SecretRead[] = [];
  const tokenUrls: ToolSecrets["tokenUrls"] = [];
  const ids = new Set(tool.operation.security.flatMap((alternative) => alternative.schemes.map((s) => s.id)));
  for (const id of ids) {
    const scheme = Object.hasOwn(credentials, id) ? credentials[id]! : undefined;
    if (!scheme) continue;
    if (scheme.type === "oauth2") tokenUrls.push({ scheme: id, url: scheme.tokenUrl });
    if (assignments?.perUser(id)) continue;
    for (const [field, source] of valueSources(scheme)) {
      const found = "env" in source ? [source.env] : secretReferencesIn(source.value);
      for (const reference of found) reads.push({ reference, from: { scheme: id, field } });
    }
  }
  let headerReads = false;
  for (const [header, value] of Object.entries(tool.operation.headers ?? {})) {
    const found = [...variablesIn(value), ...secretReferencesIn(value)];
    headerReads ||= found.length > 0;
    for (const reference of found) reads.push({ reference, from: { header } });
  }
  return { reads, tokenUrls, carries: ids.size > 0 || headerReads };
}

/** A scheme's values by field, as its type names them. */
export function valueSources(scheme: CredentialScheme): Array<[string, ValueSource]> {
  switch (scheme.type) {
    case "apiKey":
      return [["value", scheme.value]];
    case "bearer":
      return [["token", scheme.token]];
    case "basic":
      return [
        ["username", scheme.username],
        ["password", scheme.password],
      ];
    case "oauth2":
      return [
        ["clientId", scheme.clientId],
        ["clientSecret", scheme.clientSecret],
      ];
    default:
      return [];
  }
}

/** The first thing `tool` would read or send that its namespace's assignment does not allow: why, or undefined. */
export function unassignedUse({
  tool,
  credentials,
  assignments,
}: {
  tool: Tool;
  credentials: Record<string, CredentialScheme>;
  assignments: SecretAssignments;
}): string | undefined {
  const scope = assignments.scope(tool.source);
  const { reads, tokenUrls } = toolSecrets({ tool, credentials, assignments });
  const read = reads.find((r) => !scope.allows(r.reference));
  if (read) return scope.unassigned(read.reference);
  const token = tokenUrls.find((t) => !scope.allowsOrigin(t.url));
  return token ? scope.offOrigin(token.url) : undefined;
}
