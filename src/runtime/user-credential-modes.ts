// The settings file's per-user modes (`credentials.<scheme>.perUser`) made into the engine's UserCredentialMap,
// and the HTTP routes they add (the sign-in callback and sign-out). One switch on the mode; `serve` and generated
// servers both call this, so they behave the same.

import { UserError } from "../catalog/errors.js";
import type { Settings } from "../catalog/settings.js";
import type { Catalog } from "../catalog/types.js";
import type { Environment } from "../catalog/variables.js";
import type { HttpRoute } from "./http-route.js";
import type { SignIn } from "./sign-in.js";
import { signInRoutes } from "./sign-in-callback.js";
import { defaultTokenFile, FileTokenStore, signInFromSettings } from "./sign-in-settings.js";
import { SignInStates } from "./sign-in-state.js";
import { readTokenKeys, TOKEN_KEY_VARIABLE } from "./token-keys.js";
import type { TokenStore } from "./token-store.js";
import { MemoryUsedNonces } from "./used-nonces.js";
import type { UserCredentialMap, UserCredentials } from "./user-credentials.js";

export interface UserModes {
  /** Absent when no scheme is per user. */
  userCredentials?: UserCredentialMap;
  /** Routes for the HTTP server (empty when no mode needs one). */
  routes: HttpRoute[];
}

export async function userCredentialModes({
  settings,
  catalog,
  env,
  allowInsecureHttp = false,
  tokenStore,
}: {
  settings: Settings | undefined;
  catalog: Pick<Catalog, "credentials">;
  env: Environment;
  allowInsecureHttp?: boolean;
  /** Default: the encrypted file (settings `tokenStore.file`), with keys from OPENAPI_MCP_TOKEN_KEY. */
  tokenStore?: TokenStore;
}): Promise<UserModes> {
  const map: Record<string, UserCredentials> = {};
  const signIns: SignIn[] = [];
  let signInParts: Awaited<ReturnType<typeof signInStorage>> | undefined;
  for (const [id, given] of Object.entries(settings?.credentials ?? {})) {
    if (typeof given === "string" || given.perUser === undefined) continue;
    const place = `${settings?.file}#/credentials/${id}/perUser`;
    const credential = Object.hasOwn(catalog.credentials, id) ? catalog.credentials[id] : undefined;
    if (!credential) {
      const known = Object.keys(catalog.credentials);
      throw new UserError({
        code: "E_SETTINGS",
        message: `${place}: no security scheme '${id}' (the source has: ${known.join(", ") || "none"})`,
      });
    }
    const [mode] = Object.keys(given.perUser);
    switch (mode) {
      case "signIn": {
        signInParts ??= await signInStorage({ settings, env, place, ...(tokenStore ? { tokenStore } : {}) });
        const signIn = signInFromSettings({
          id,
          given: given.perUser.signIn!,
          credential,
          place: `${place}/signIn`,
          env,
          allowInsecureHttp,
          ...signInParts,
        });
        map[id] = signIn;
        signIns.push(signIn);
        break;
      }
      default:
        throw new UserError({ code: "E_SETTINGS", message: `${place}: unknown per-user mode '${mode}'` });
    }
  }
  const routes = signInParts ? signInRoutes({ signIns, states: signInParts.states }) : [];
  return { ...(Object.keys(map).length > 0 ? { userCredentials: map } : {}), routes };
}

/** The token store and the sign-in states' keys; the store is read once now, so a damaged one stops the start. */
async function signInStorage({
  settings,
  env,
  place,
  tokenStore,
}: {
  settings: Settings | undefined;
  env: Environment;
  place: string;
  tokenStore?: TokenStore;
}): Promise<{ store: TokenStore; states: SignInStates }> {
  const keys = readTokenKeys({ value: env[TOKEN_KEY_VARIABLE], purpose: `signing in (${place})` });
  const store = tokenStore ?? new FileTokenStore({ file: settings?.tokenStore?.file ?? defaultTokenFile(env), keys });
  await store.list("");
  return { store, states: new SignInStates({ keys, usedNonces: new MemoryUsedNonces() }) };
}
