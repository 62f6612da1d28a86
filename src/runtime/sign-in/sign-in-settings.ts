// A scheme's `perUser: { signIn: {...} }` settings made into the sign-in mode (sign-in.ts): the client's id and
// secret (`${VAR}` read from the environment), the provider's URLs (by default the document's authorizationCode
// flow), this server's callback, and the token store every signed-in scheme shares. What is missing or wrong is a
// UserError naming its place in the settings file.

import { homedir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../catalog/errors.js";
import type { SignInSettings } from "../../catalog/settings.js";
import type { CredentialScheme } from "../../catalog/types.js";
import { type Environment, expandVariables } from "../../catalog/variables.js";
import { SignIn } from "./sign-in.js";
import type { SignInStates } from "./oauth-state.js";
import type { TokenStore } from "./token-store.js";

export const CALLBACK_PATH = "/oauth/callback";

export function signInFromSettings({
  id,
  given,
  credential,
  place,
  env,
  store,
  states,
  allowInsecureHttp,
}: {
  id: string;
  given: SignInSettings;
  credential: CredentialScheme;
  /** `settings.yaml#/credentials/<id>/perUser/signIn`, for messages. */
  place: string;
  env: Environment;
  store: TokenStore;
  states: SignInStates;
  allowInsecureHttp: boolean;
}): SignIn {
  const fail = (message: string): UserError => new UserError({ code: "E_SETTINGS", message: `${place}: ${message}` });
  if (credential.type !== "bearer" && credential.type !== "oauth2")
    throw fail(`signing in gives a bearer token, and scheme '${id}' is ${credential.type}`);
  const flow = credential.authorizationCode;
  const authorizationUrl = given.authorizationUrl ?? flow?.authorizationUrl;
  const tokenUrl = given.tokenUrl ?? flow?.tokenUrl ?? (credential.type === "oauth2" ? credential.tokenUrl : undefined);
  if (!authorizationUrl || !tokenUrl)
    throw fail(
      `give authorizationUrl and tokenUrl: scheme '${id}' has no OAuth 2.0 authorizationCode flow in the document to take them from`,
    );
  const base = given.publicUrl?.replace(/\/+$/, "");
  const redirectUrl = given.redirectUrl ?? (base !== undefined ? `${base}${CALLBACK_PATH}` : undefined);
  if (!redirectUrl)
    throw fail(
      `give redirectUrl (this server's callback as registered at the provider) or publicUrl (the callback is then <publicUrl>${CALLBACK_PATH})`,
    );
  for (const [field, url] of Object.entries({ authorizationUrl, tokenUrl, redirectUrl })) {
    if (!URL.canParse(url)) throw fail(`${field} '${url}' is not a URL`);
  }
  const expand = (text: string, field: string): string => expandVariables({ text, env, place: `${place}/${field}` });
  const clientSecret = given.clientSecret !== undefined ? expand(given.clientSecret, "clientSecret") : undefined;
  return new SignIn(
    {
      scheme: id,
      name: credential.name,
      clientId: expand(given.clientId, "clientId"),
      ...(clientSecret !== undefined ? { clientSecret } : {}),
      ...(given.authMethod !== undefined ? { authMethod: given.authMethod } : {}),
      ...(given.scopes ? { scopes: given.scopes } : {}),
      authorizationUrl,
      tokenUrl,
      ...(given.revocationUrl ? { revocationUrl: given.revocationUrl } : {}),
      redirectUrl,
      allowInsecureHttp,
    },
    { store, states },
  );
}

/** The store of every signed-in scheme: the settings' file, or one in the user's state directory. */
export function defaultTokenFile(env: Environment): string {
  const state = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(state, "openapi-mcp", "user-tokens.json");
}
