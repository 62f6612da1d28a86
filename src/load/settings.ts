// The settings file (`--config`): options, policies, rate limits and credential values. Credential values never
// enter the catalog (it holds no secrets): they become environment entries under the variable names the
// catalog's schemes already read, so the engine finds them exactly as it finds exported variables.

import { UserError } from "../catalog/errors.js";
import type { Catalog, RateLimit, ValueSource } from "../catalog/types.js";
import { parseBytes } from "./parse.js";
import { readSource } from "./read.js";
import { refuse, schemaProblems } from "./schema-check.js";
import type { Environment } from "./variables.js";
import { expandVariables } from "./variables.js";

export type PolicyDecision = "allow" | "approve" | "deny";
export type CredentialValues = string | { value?: string; username?: string; password?: string; clientId?: string; clientSecret?: string };

export interface Settings {
  /** Where the settings came from, for messages. */
  file: string;
  baseUrl?: string;
  /** Values for the documents' server variables, for every source. */
  serverVariables?: Record<string, string | number>;
  include?: string[];
  exclude?: string[];
  timeoutMs?: number;
  maxResponseBytes?: number;
  outputValidation?: "strict" | "warn" | "off";
  allowInsecureHttp?: boolean;
  auditLog?: string;
  policy?: Record<string, PolicyDecision>;
  deniedTools?: "hide" | "refuse";
  approvalTimeoutSeconds?: number;
  /** `serve` only: one tool per operation, or search_tools, describe_tool and call_tool. */
  mode?: "tools" | "dynamic";
  /** `serve --transport http` only: session idle expiry and caps. */
  sessionIdleTimeoutSeconds?: number;
  maxSessions?: number;
  maxSessionsPerPrincipal?: number;
  rateLimits?: { tools?: Record<string, RateLimit>; sources?: Record<string, RateLimit> };
  credentials?: Record<string, CredentialValues>;
  /** Schemes defined or redirected, as a manifest's `auth` (`<source-id>.<scheme>` keys for several sources). */
  auth?: Record<string, unknown>;
  /** `serve`: refuse to start while a tool lacks its credentials. */
  requireCredentials?: boolean;
}

/** What each kind of scheme takes from settings. */
const FIELDS: Record<string, string[]> = {
  apiKey: ["value"],
  bearer: ["value"],
  basic: ["username", "password"],
  oauth2: ["clientId", "clientSecret"],
};

export async function readSettings(path: string): Promise<Settings> {
  const read = await readSource(path);
  const { value, text } = parseBytes({ bytes: read.bytes, file: read.display });
  refuse({ problems: schemaProblems({ schemaName: "settings", parsed: { value, text: text() }, file: read.display }), file: read.display, what: "settings file" });
  return { ...(value as Omit<Settings, "file">), file: read.display };
}

/**
 * The environment the engine reads credentials from: the process's, plus the settings file's values under each
 * scheme's variable names. `${VAR}` in a value is read from the environment.
 */
export function credentialEnvironment({ settings, catalog, env }: { settings: Settings; catalog: Catalog; env: Environment }): Environment {
  const entries = Object.entries(settings.credentials ?? {});
  if (entries.length === 0) return env;
  const result: Environment = { ...env };
  for (const [id, given] of entries) {
    const credential = catalog.credentials[id];
    const place = `${settings.file}#/credentials/${id}`;
    if (!credential) {
      const known = Object.keys(catalog.credentials);
      throw new UserError({ code: "E_SETTINGS", message: `${place}: no security scheme '${id}' (the source has: ${known.join(", ") || "none"})` });
    }
    const values = typeof given === "string" ? { value: given } : given;
    const fields = FIELDS[credential.type] ?? [];
    const stray = Object.keys(values).filter((field) => !fields.includes(field));
    if (stray.length > 0) {
      throw new UserError({ code: "E_SETTINGS", message: `${place}: ${/^[aeiou]/i.test(credential.type) ? "an" : "a"} ${credential.type} scheme takes ${fields.join(" and ") || "no values"}, not ${stray.join(", ")}` });
    }
    const set = (source: ValueSource | undefined, value: string | undefined, field: string): void => {
      if (value === undefined) return;
      if (source === undefined || !("env" in source)) {
        throw new UserError({ code: "E_SETTINGS", message: `${place}/${field}: scheme '${id}' (${credential.type}) takes no ${field} from settings` });
      }
      result[source.env] = expandVariables({ text: value, env, place: `${place}/${field}` });
    };
    switch (credential.type) {
      case "apiKey":
        set(credential.value, values.value, "value");
        break;
      case "bearer":
        set(credential.token, values.value, "value");
        break;
      case "basic":
        set(credential.username, values.username, "username");
        set(credential.password, values.password, "password");
        break;
      case "oauth2":
        set(credential.clientId, values.clientId, "clientId");
        set(credential.clientSecret, values.clientSecret, "clientSecret");
        break;
      default:
        throw new UserError({ code: "E_SETTINGS", message: `${place}: scheme '${id}' is not supported (${credential.reason}); it takes no values` });
    }
  }
  return result;
}
