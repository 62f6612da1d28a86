// Credentials a source gets besides what its document declares: `--auth` on the command line, `auth:` in a
// manifest entry and `auth:` in a settings file, as the catalog's auth entries per source (see catalog/auth.ts).
// For a source it names, the command line wins over the files; a settings entry wins over the manifest's entry of
// the same name. Messages about `--auth` never repeat what was given beyond its kind: it may be a pasted secret.

import { valueSource } from "../catalog/actions.js";
import { UserError } from "../catalog/errors.js";
import { TRANSPORT_HEADERS } from "../catalog/http-headers.js";
import { defineOwn } from "../catalog/own.js";
import { isObject, joinPointer } from "../catalog/pointer.js";
import type { CredentialOverride } from "../catalog/security.js";
import type { ValueSource } from "../catalog/types.js";
import type { Environment } from "../catalog/variables.js";

const FORMS =
  "bearer:VAR, header:NAME:VAR, query:NAME:VAR, cookie:NAME:VAR, basic:USERVAR:PASSVAR (each VAR may be file:PATH or cmd:NAME)";
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** An HTTP token: what a header, query parameter or cookie name given on the command line may be. */
const NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

interface AuthOption {
  source?: string;
  kind: string;
  entry: CredentialOverride;
}

/** `[source-id=]kind:…` → the source it names (if any) and the scheme every tool of that source sends. */
export function parseAuthOption(text: string, env: Environment): AuthOption {
  const equals = text.indexOf("=");
  const colon = text.indexOf(":");
  const prefixed = equals > 0 && (colon < 0 || equals < colon);
  const [kind = "", ...given] = (prefixed ? text.slice(equals + 1) : text).split(":");
  const parts = secretSlots({ parts: given, count: kind === "bearer" ? 1 : 2 });
  const known = ["bearer", "header", "query", "cookie", "basic"].includes(kind);
  const bad = (why: string): UserError =>
    new UserError({
      code: "E_OPTION",
      message: `--auth ${known ? `${kind}:…` : "value"}: ${why}; the forms are ${FORMS}, optionally after source-id= (e.g. cars=bearer:CARS_TOKEN), where VAR names an environment variable`,
    });
  const variable = (name: string | undefined): ValueSource => {
    // `file:PATH` and `cmd:NAME`, read when a call needs them (runtime/secrets/secret-sources.ts).
    if (name !== undefined && /^(file|cmd):./.test(name)) return { value: `\${${name}}` };
    if (name === undefined || !VARIABLE.test(name))
      throw bad("a variable name has letters, digits and '_' and does not start with a digit");
    // `--auth bearer:$TOKEN` puts the secret itself on the command line, where the process list shows it.
    if (env[name] === undefined && Object.values(env).includes(name)) {
      throw new UserError({
        code: "E_OPTION",
        message: `--auth ${kind}:…: give the environment variable's name, not its value (bearer:GITHUB_TOKEN, not bearer:$GITHUB_TOKEN)`,
      });
    }
    return { env: name };
  };
  const arity = (count: number, form: string): void => {
    if (parts.length !== count) throw bad(`expected ${form}`);
  };
  let entry: CredentialOverride;
  switch (kind) {
    case "bearer":
      arity(1, "bearer:VAR");
      entry = { type: "bearer", value: variable(parts[0]) };
      break;
    case "header":
    case "query":
    case "cookie": {
      arity(2, `${kind}:NAME:VAR`);
      const name = parts[0]!;
      if (!NAME.test(name)) throw bad(`the ${kind} name must be an HTTP token (letters, digits and !#$%&'*+.^_\`|~-)`);
      if (kind === "header" && TRANSPORT_HEADERS.has(name.toLowerCase())) throw bad(`${name} is set by HTTP itself`);
      entry = { type: "apiKey", in: kind, parameter: name, value: variable(parts[1]) };
      break;
    }
    case "basic":
      arity(2, "basic:USERVAR:PASSVAR");
      entry = { type: "basic", username: variable(parts[0]), password: variable(parts[1]) };
      break;
    default:
      throw bad("not one of the accepted forms");
  }
  const source = prefixed ? text.slice(0, equals) : undefined;
  if (source !== undefined && !SOURCE_ID.test(source)) throw bad("the part before '=' is not a source id");
  return {
    ...(source !== undefined ? { source } : {}),
    kind,
    entry: { ...entry, everyTool: true, place: { file: "--auth" } },
  };
}

/** A manifest's or settings file's `auth` (already checked against its schema) as auth entries. */
export function authEntries(
  auth: Record<string, unknown>,
  { file, pointer }: { file: string; pointer: string },
): Record<string, CredentialOverride> {
  const result: Record<string, CredentialOverride> = {};
  for (const [scheme, given] of Object.entries(auth)) {
    const place = { file, pointer: joinPointer(pointer, scheme) };
    if (typeof given === "string") {
      defineOwn(result, scheme, { value: valueSource(given), place });
      continue;
    }
    if (!isObject(given)) continue;
    const entry: CredentialOverride = { place };
    if (typeof given.type === "string") entry.type = given.type as NonNullable<CredentialOverride["type"]>;
    if (given.in === "header" || given.in === "query" || given.in === "cookie") entry.in = given.in;
    if (typeof given.name === "string") entry.parameter = given.name;
    for (const key of ["value", "username", "password", "clientId", "clientSecret"] as const) {
      if (typeof given[key] === "string") entry[key] = valueSource(given[key]);
    }
    if (typeof given.tokenUrl === "string") entry.tokenUrl = given.tokenUrl;
    if (Array.isArray(given.scopes)) entry.scopes = given.scopes.filter((s): s is string => typeof s === "string");
    defineOwn(result, scheme, entry);
  }
  return result;
}

/**
 * The `:`-separated parts with each `file:PATH` and `cmd:NAME` joined back into one. The path of the last value
 * runs to the end (it may hold `:`); an earlier one ends at the next `:`.
 */
function secretSlots({ parts, count }: { parts: string[]; count: number }): string[] {
  const slots: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if ((part === "file" || part === "cmd") && i + 1 < parts.length) {
      const rest = part === "file" && slots.length === count - 1 ? parts.slice(i + 1).join(":") : parts[i + 1]!;
      slots.push(`${part}:${rest}`);
      i += rest.split(":").length;
    } else slots.push(part);
  }
  return slots;
}
