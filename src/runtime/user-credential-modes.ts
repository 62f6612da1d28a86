// The per-user modes a settings file chooses (`credentials.<scheme>.perUser`), checked and built into the map the
// engine takes (user-credentials.ts). One switch on the mode: each mode checks its own settings, with messages
// naming the place in the file, and describes itself for `inspect` without needing its secrets.

import { UserError } from "../catalog/errors.js";
import type { PerUserCredentials, Settings, TokenExchangeSettings } from "../catalog/settings.js";
import type { Catalog, CredentialScheme } from "../catalog/types.js";
import { isAllowedScheme } from "../catalog/url.js";
import { type Environment, expandVariables } from "../catalog/variables.js";
import { forwardedCredentials, forwardedHeaderName } from "./forwarded-credentials.js";
import { defined } from "./defined.js";
import {
  ACCESS_TOKEN_TYPE,
  TokenExchange,
  type TokenExchangeConfig,
  type TokenExchangeOptions,
} from "./token-exchange.js";
import type { UserCredentialMap, UserCredentialMode, UserCredentials } from "./user-credentials.js";

/** One scheme's per-user entry in the settings file. */
interface PerUserEntry {
  id: string;
  scheme: CredentialScheme;
  /** `<file>#/credentials/<id>/perUser/<mode>`. */
  place: string;
  mode: UserCredentialMode;
  config: Record<string, unknown>;
}

/** How each scheme's value is obtained: a per-user mode's description, or from the environment (settings values). */
export interface CredentialMode {
  mode: "environment" | UserCredentialMode;
  description: string;
}

/** The per-user entries of the settings file, checked to name a scheme of the catalog and exactly one mode. */
function perUserEntries({ settings, catalog }: { settings: Settings; catalog: Pick<Catalog, "credentials"> }) {
  const entries: PerUserEntry[] = [];
  for (const [id, given] of Object.entries(settings.credentials ?? {})) {
    if (typeof given === "string" || given.perUser === undefined) continue;
    const place = `${settings.file}#/credentials/${id}/perUser`;
    const refuse = (message: string): never => {
      throw new UserError({ code: "E_SETTINGS", message: `${place}: ${message}` });
    };
    const scheme = Object.hasOwn(catalog.credentials, id) ? catalog.credentials[id] : undefined;
    if (!scheme)
      refuse(`no security scheme '${id}' (the source has: ${Object.keys(catalog.credentials).join(", ") || "none"})`);
    if (scheme!.type === "unsupported") refuse(`scheme '${id}' is not supported (${scheme!.reason})`);
    const modes = Object.keys(given.perUser as PerUserCredentials);
    if (modes.length !== 1) refuse(`name exactly one mode (forwarded or exchange), not ${modes.length}`);
    const mode = modes[0] as UserCredentialMode;
    const config = (given.perUser as Record<string, unknown>)[mode];
    if (typeof config !== "object" || config === null) refuse(`${mode}: expected an object`);
    entries.push({ id, scheme: scheme!, place: `${place}/${mode}`, mode, config: config as Record<string, unknown> });
  }
  return entries;
}

/** What `inspect` says of each scheme: its per-user mode, or `environment`. Needs no secret. */
export function credentialModes({
  settings,
  catalog,
}: {
  settings: Settings | undefined;
  catalog: Pick<Catalog, "credentials">;
}): Record<string, CredentialMode> {
  const modes: Record<string, CredentialMode> = {};
  for (const id of Object.keys(catalog.credentials)) modes[id] = { mode: "environment", description: "environment" };
  for (const entry of settings ? perUserEntries({ settings, catalog }) : [])
    modes[entry.id] = { mode: entry.mode, description: describe(entry) };
  return modes;
}

function describe({ mode, config }: PerUserEntry): string {
  switch (mode) {
    case "forwarded":
      return `forwarded from each caller's ${String(config.header)} header`;
    case "exchange":
      return `exchanged for each caller's MCP access token at ${String(config.tokenUrl)} (RFC 8693)`;
    default:
      return mode;
  }
}

/** The per-user credentials the settings file configures, by scheme id; a UserError names a setting that is wrong. */
export function userCredentialModes({
  settings,
  catalog,
  env,
  allowInsecureHttp = false,
  exchange = {},
}: {
  settings: Settings | undefined;
  catalog: Pick<Catalog, "credentials">;
  /** For `${VAR}` in secrets. */
  env: Environment;
  allowInsecureHttp?: boolean;
  /** For tests: the exchange's clock and HTTP client. */
  exchange?: TokenExchangeOptions;
}): UserCredentialMap {
  const map: Record<string, UserCredentials> = {};
  for (const entry of settings ? perUserEntries({ settings, catalog }) : []) {
    const { id, scheme, place, config } = entry;
    switch (entry.mode) {
      case "forwarded": {
        const header = forwardedHeaderName({ header: config.header, place: `${place}/header` });
        const bearer = scheme.type === "bearer" || scheme.type === "oauth2";
        map[id] = forwardedCredentials({ header, display: String(config.header), scheme: scheme.name, bearer });
        break;
      }
      case "exchange":
        if (scheme.type === "basic")
          throw new UserError({
            code: "E_SETTINGS",
            message: `${place}: an exchanged token cannot be an HTTP basic pair`,
          });
        map[id] = new TokenExchange(exchangeConfig({ config, place, env, allowInsecureHttp, scheme: scheme.name }), {
          allowInsecureHttp,
          ...exchange,
        });
        break;
      default:
        throw new UserError({
          code: "E_SETTINGS",
          message: `${place}: unknown mode '${entry.mode}' (forwarded or exchange)`,
        });
    }
  }
  return map;
}

function exchangeConfig({
  config,
  place,
  env,
  allowInsecureHttp,
  scheme,
}: {
  config: Record<string, unknown>;
  place: string;
  env: Environment;
  allowInsecureHttp: boolean;
  scheme: string;
}): TokenExchangeConfig {
  const given = config as Partial<TokenExchangeSettings>;
  const text = (field: keyof TokenExchangeSettings, required: boolean): string | undefined => {
    const value = given[field];
    if (value === undefined && !required) return undefined;
    if (typeof value !== "string" || value === "")
      throw new UserError({ code: "E_SETTINGS", message: `${place}/${field}: expected a non-empty string` });
    return expandVariables({ text: value, env, place: `${place}/${field}` });
  };
  const tokenUrl = text("tokenUrl", true)!;
  let url: URL | undefined;
  try {
    url = new URL(tokenUrl);
  } catch {}
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
    throw new UserError({ code: "E_SETTINGS", message: `${place}/tokenUrl: '${tokenUrl}' is not an https:// URL` });
  if (!isAllowedScheme(url, allowInsecureHttp))
    throw new UserError({
      code: "E_HTTPS_REQUIRED",
      message: `${place}/tokenUrl: ${tokenUrl} is plain http to a host that is not loopback, which would send the callers' tokens and the client secret unencrypted; use https:// (or --allow-insecure-http)`,
    });
  const scopes = given.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== "string" || s === "" || /\s/.test(s)))
    throw new UserError({ code: "E_SETTINGS", message: `${place}/scopes: expected a list of scopes without spaces` });
  const authMethod = given.authMethod ?? "client_secret_basic";
  if (authMethod !== "client_secret_basic" && authMethod !== "client_secret_post")
    throw new UserError({
      code: "E_SETTINGS",
      message: `${place}/authMethod: client_secret_basic or client_secret_post`,
    });
  return {
    tokenUrl,
    clientId: text("clientId", true)!,
    clientSecret: text("clientSecret", true)!,
    scopes,
    authMethod,
    subjectTokenType: text("subjectTokenType", false) ?? ACCESS_TOKEN_TYPE,
    scheme,
    ...defined({
      audience: text("audience", false),
      resource: text("resource", false),
      requestedTokenType: text("requestedTokenType", false),
    }),
  };
}
