// The per-user modes a settings file chooses (`credentials.<scheme>.perUser`), checked and built into the map the
// engine takes (user-credentials.ts), with the HTTP routes they add (the sign-in callback and sign-out). One switch
// on the mode: each mode checks its own settings, with messages naming the place in the file, and describes itself
// for `inspect` without needing its secrets. `serve` and generated servers both call this, so they behave the same.

import { UserError } from "../../catalog/errors.js";
import type { PerUserCredentials, Settings, SignInSettings, TokenExchangeSettings } from "../../catalog/settings.js";
import type { Catalog, CredentialScheme } from "../../catalog/types.js";
import { isAllowedScheme } from "../../catalog/url.js";
import { type Environment, expandVariables } from "../../catalog/variables.js";
import { forwardedCredentials, forwardedHeaderName } from "./forwarded-credentials.js";
import { defined } from "../defined.js";
import type { HttpRoute } from "../http-route.js";
import type { SignIn } from "../sign-in/sign-in.js";
import { signInRoutes } from "../sign-in/sign-in-callback.js";
import { SignInConfirmations } from "../sign-in/sign-in-confirmation.js";
import { defaultTokenFile, signInFromSettings } from "../sign-in/sign-in-settings.js";
import { FileTokenStore } from "../sign-in/file-token-store.js";
import { SignInStates } from "../sign-in/oauth-state.js";
import type { SharedState } from "../shared/shared-state.js";
import {
  ACCESS_TOKEN_TYPE,
  TokenExchange,
  type TokenExchangeConfig,
  type TokenExchangeOptions,
} from "./token-exchange.js";
import { readTokenKeys, TOKEN_KEY_VARIABLE } from "../sign-in/token-keys.js";
import type { TokenStore } from "../sign-in/token-store.js";
import { MemoryUsedNonces } from "../approvals/used-nonces.js";
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
    if (modes.length !== 1) refuse(`name exactly one mode (forwarded, exchange or signIn), not ${modes.length}`);
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
    case "signIn":
      return "each caller signs in (OAuth 2.0 authorization code with PKCE)";
    default:
      return mode;
  }
}

export interface UserModes {
  /** Absent when no scheme is per user. */
  userCredentials?: UserCredentialMap;
  /** Routes for the HTTP server (empty when no mode needs one). */
  routes: HttpRoute[];
}

/**
 * The per-user credentials the settings file configures, by scheme id, and the routes they need; a UserError names
 * a setting that is wrong (or a token store that cannot be read: it is read once now, so a damaged one stops the start).
 */
export async function userCredentialModes({
  settings,
  catalog,
  env,
  allowInsecureHttp = false,
  exchange = {},
  tokenStore,
  shared = {},
  log = () => {},
}: {
  settings: Settings | undefined;
  catalog: Pick<Catalog, "credentials">;
  /** For `${VAR}` in secrets, and the token store's keys. */
  env: Environment;
  allowInsecureHttp?: boolean;
  /** For tests: the exchange's clock and HTTP client. */
  exchange?: TokenExchangeOptions;
  /** Default: the encrypted file (settings `tokenStore.file`), with keys from OPENAPI_MCP_TOKEN_KEY. */
  tokenStore?: TokenStore;
  /**
   * Redis (--state): users' tokens (unless settings name a file), used sign-in states and exchanged tokens shared by
   * the replicas.
   */
  shared?: Pick<SharedState, "usedNonces" | "tokenStore" | "exchanges" | "redis">;
  log?: (line: string) => void;
}): Promise<UserModes> {
  const map: Record<string, UserCredentials> = {};
  const signIns: SignIn[] = [];
  let storage: Awaited<ReturnType<typeof signInStorage>> | undefined;
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
        if (shared.redis && !shared.exchanges)
          log(
            `WARNING --state is Redis but there is no --state-secret (MCP_STATE_SECRET): tokens exchanged for ${place} are cached per replica (never kept in Redis unencrypted); give every replica the same secret to share them`,
          );
        map[id] = new TokenExchange(exchangeConfig({ config, place, env, allowInsecureHttp, scheme: scheme.name }), {
          allowInsecureHttp,
          ...defined({ shared: shared.exchanges }),
          ...exchange,
        });
        break;
      case "signIn": {
        storage ??= await signInStorage({ settings, env, place, shared, log, ...(tokenStore ? { tokenStore } : {}) });
        const signIn = signInFromSettings({
          id,
          given: config as unknown as SignInSettings,
          credential: scheme,
          place,
          env,
          allowInsecureHttp,
          ...storage,
        });
        map[id] = signIn;
        signIns.push(signIn);
        break;
      }
      default:
        throw new UserError({
          code: "E_SETTINGS",
          message: `${place}: unknown mode '${entry.mode}' (forwarded, exchange or signIn)`,
        });
    }
  }
  const routes = storage ? signInRoutes({ signIns, states: storage.states, confirmations: storage.confirmations }) : [];
  return { ...(Object.keys(map).length > 0 ? { userCredentials: map } : {}), routes };
}

/**
 * The token store and the sign-in states' keys; the store is read once now, so a damaged one stops the start.
 * A token file the settings name wins over the shared state: it is where users' sign-ins already are, and a
 * setting written down is never ignored; the start says that sign-ins then stay on this replica.
 */
async function signInStorage({
  settings,
  env,
  place,
  tokenStore,
  shared,
  log,
}: {
  settings: Settings | undefined;
  env: Environment;
  place: string;
  tokenStore?: TokenStore;
  shared: Pick<SharedState, "usedNonces" | "tokenStore">;
  log: (line: string) => void;
}): Promise<{ store: TokenStore; states: SignInStates; confirmations: SignInConfirmations }> {
  const keys = readTokenKeys({ value: env[TOKEN_KEY_VARIABLE], purpose: `signing in (${place})` });
  const file = settings?.tokenStore?.file;
  if (file !== undefined && shared.tokenStore)
    log(
      `openapi-mcp: users' tokens are kept in ${file} (${settings?.file}#/tokenStore/file), not in the shared state (--state): a user signed in through this replica is not signed in on the others. Remove tokenStore.file to share them`,
    );
  const store =
    tokenStore ??
    (file === undefined ? shared.tokenStore?.(keys) : undefined) ??
    new FileTokenStore({ file: file ?? defaultTokenFile(env), keys });
  await store.list("");
  const usedNonces = shared.usedNonces ?? new MemoryUsedNonces();
  return {
    store,
    states: new SignInStates({ keys, usedNonces }),
    confirmations: new SignInConfirmations({ keys, usedNonces }),
  };
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
