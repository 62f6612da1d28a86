// Auth entries (from a manifest, a settings file or `--auth`) applied to the schemes a source declares. An entry
// with values only points a declared scheme at other variables. An entry with a `type` defines a scheme: under a
// declared scheme's name it replaces that scheme; under a new name (and always for `--auth`) every tool of the
// source sends it instead of what the document asks for, so a source that declares none (GitHub's spec) can carry
// a token, and one whose declared schemes are wrong can be corrected.

import type { CatalogBuilder, SourceSettings } from "./builder.js";
import { defineOwn } from "./own.js";
import { joinPointer } from "./pointer.js";
import { type CredentialOverride, envSuffix, unknownAuthMappings } from "./security.js";
import type { CredentialScheme, Diagnostic, SecurityRequirement, ValueSource } from "./types.js";

/** A scheme's credential id in the catalog: `<source>.<scheme>` in a manifest, the scheme's name alone otherwise. */
export function credentialIds(sourceId: string): (schemeName: string) => string {
  return (name) => (sourceId ? `${sourceId}.${name}` : name);
}

/** The scheme name the convention's variables are built from: prefixed by the source's id in a manifest. */
export function envNames(sourceId: string): (schemeName: string) => string {
  return (name) => (sourceId ? `${sourceId}_${name}` : name);
}

/**
 * A source's schemes with its auth entries applied (see `applyAuthEntries`), added to the catalog under the
 * source's namespace; their problems are reported.
 */
export function addSourceCredentials({
  builder,
  source,
  file,
  declared,
  declaredNames,
}: {
  builder: CatalogBuilder;
  source: SourceSettings;
  file: string;
  declared: Record<string, CredentialScheme>;
  declaredNames: string[];
}): { credentials: Record<string, CredentialScheme>; everyTool?: string[] } {
  const { credentials, everyTool, diagnostics } = applyAuthEntries({
    declared,
    declaredNames,
    ...(source.auth ? { entries: source.auth } : {}),
    envName: envNames(source.id),
    file,
    ...(source.authPlace ? { place: source.authPlace } : {}),
  });
  builder.diagnostics.push(...diagnostics);
  const idOf = credentialIds(source.id);
  for (const [name, credential] of Object.entries(credentials)) builder.addCredential(idOf(name), credential);
  return { credentials, ...(everyTool ? { everyTool } : {}) };
}

/** Names of entries that define their scheme: the document's scheme of that name is not read. */
export function definedNames(entries: Record<string, CredentialOverride> | undefined): Set<string> {
  return new Set(Object.entries(entries ?? {}).flatMap(([name, entry]) => (entry.type ? [name] : [])));
}

/**
 * The source's schemes with its auth entries applied, and, when some entry is sent by every tool, the names of
 * those schemes (the tools' requirement then lists them all and nothing else).
 */
export function applyAuthEntries({
  declared,
  declaredNames,
  entries = {},
  envName,
  file,
  place,
}: {
  /** Schemes built from the source, value-only entries applied; schemes `definedNames` names left out. */
  declared: Record<string, CredentialScheme>;
  /** Every scheme name the source declares, for telling a replacement from an addition. */
  declaredNames: string[];
  entries?: Record<string, CredentialOverride>;
  envName: (schemeName: string) => string;
  file: string;
  place?: { file: string; pointer: string };
}): { credentials: Record<string, CredentialScheme>; everyTool?: string[]; diagnostics: Diagnostic[] } {
  const credentials: Record<string, CredentialScheme> = { ...declared };
  const everyTool: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    if (!entry.type) continue;
    const defined = definedCredential({ name, entry, envName });
    if ("problem" in defined) {
      diagnostics.push({
        severity: "error",
        code: "invalid-auth",
        message: `auth '${name}': ${defined.problem}`,
        ...placeOf(entry, name, { file, place }),
      });
      continue;
    }
    if (entry.everyTool || !declaredNames.includes(name)) everyTool.push(name);
    defineOwn(credentials, name, defined);
  }
  const valueOnly = Object.fromEntries(Object.entries(entries).filter(([, entry]) => !entry.type));
  diagnostics.push(
    ...unknownAuthMappings({ overrides: valueOnly, known: declaredNames, file, ...(place ? { place } : {}) }),
  );
  if (everyTool.length === 0) return { credentials, diagnostics };
  // The schemes given for every tool replace the document's requirements, so the declared ones go unused.
  for (const name of Object.keys(entries).filter((n) => !everyTool.includes(n) && declaredNames.includes(n))) {
    diagnostics.push({
      severity: "warning",
      code: "auth-unused",
      message: `auth '${name}' is not used: every tool of ${file} sends ${everyTool.map((n) => `'${n}'`).join(" and ")} instead of what the document asks for`,
      ...placeOf(entries[name]!, name, { file, place }),
    });
  }
  const kept: Record<string, CredentialScheme> = {};
  for (const name of everyTool) defineOwn(kept, name, credentials[name]!);
  return { credentials: kept, everyTool, diagnostics };
}

/** The requirement of every tool of a source whose auth entries are sent by every tool: all of them at once. */
export function everyToolRequirement(names: string[], idOf: (schemeName: string) => string): SecurityRequirement[] {
  return [{ schemes: names.map((name) => ({ id: idOf(name), scopes: [] })) }];
}

function definedCredential({
  name,
  entry,
  envName,
}: {
  name: string;
  entry: CredentialOverride;
  envName: (schemeName: string) => string;
}): CredentialScheme | { problem: string } {
  const env = (prefix: string): ValueSource => ({ env: `${prefix}_${envSuffix(envName(name))}` });
  const base = { name, ...(entry.description ? { description: entry.description } : {}) };
  switch (entry.type) {
    case "apiKey":
      if (!entry.in || !entry.parameter)
        return { problem: "an apiKey scheme needs 'in' (header, query or cookie) and 'name'" };
      return {
        ...base,
        type: "apiKey",
        in: entry.in,
        parameter: entry.parameter,
        value: entry.value ?? env("API_KEY"),
      };
    case "bearer":
      return { ...base, type: "bearer", token: entry.value ?? env("BEARER_TOKEN") };
    case "basic":
      return {
        ...base,
        type: "basic",
        username: entry.username ?? env("BASIC_USERNAME"),
        password: entry.password ?? env("BASIC_PASSWORD"),
      };
    case "oauth2":
      if (!entry.tokenUrl) return { problem: "an oauth2 scheme (client credentials) needs 'tokenUrl'" };
      return {
        ...base,
        type: "oauth2",
        tokenUrl: entry.tokenUrl,
        scopes: entry.scopes ?? [],
        clientId: entry.clientId ?? env("OAUTH_CLIENT_ID"),
        clientSecret: entry.clientSecret ?? env("OAUTH_CLIENT_SECRET"),
      };
    default:
      return { problem: `unknown type '${String(entry.type)}' (apiKey, bearer, basic or oauth2)` };
  }
}

function placeOf(
  entry: CredentialOverride,
  name: string,
  { file, place }: { file: string; place?: { file: string; pointer: string } | undefined },
): { file: string; pointer?: string } {
  if (entry.place) return entry.place;
  return place ? { file: place.file, pointer: joinPointer(place.pointer, name) } : { file };
}
