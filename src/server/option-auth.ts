// Endpoint auth from the options: static bearer tokens or an OAuth protected resource, refusing the combinations
// that cannot work (both at once, auth over stdio, a principal claim without OAuth). Shared by `openapi-mcp serve`
// and generated servers, so both refuse the same things in the same words.

import type { AuthConfig } from "./auth-config.js";
import { type Given, optionError } from "./option-given.js";

export function endpointAuth({
  given,
  transport,
  allowInsecureHttp,
}: {
  given: (name: string) => Given | undefined;
  transport: "stdio" | "http";
  allowInsecureHttp: boolean;
}): AuthConfig | undefined {
  const tokenEnv = given("auth-token-env");
  const resource = given("auth-resource");
  const issuers = given("auth-issuer");
  const oauth = resource ?? issuers;
  if (tokenEnv && oauth)
    throw optionError(`${tokenEnv.source} and ${oauth.source} are two ways of checking clients; choose one`);
  const claim = given("auth-principal-claim");
  if (claim && !oauth)
    throw optionError(`${claim.source} applies to OAuth endpoint auth (--auth-resource and --auth-issuer)`);
  const auth = tokenEnv ?? oauth;
  if (auth && transport !== "http")
    throw optionError(
      `${auth.source} applies to HTTP (--transport http): a stdio client is the process that started the server`,
    );
  if (tokenEnv) return { type: "static", tokenEnv: tokenEnv.values.at(-1)! };
  if (!oauth) return undefined;
  if (!resource || !issuers)
    throw optionError(
      "OAuth endpoint auth needs both --auth-resource <url> and --auth-issuer <url> (or MCP_AUTH_RESOURCE and MCP_AUTH_ISSUER)",
    );
  const jwksUrl = given("auth-jwks-url")?.values.at(-1);
  const audience = given("auth-audience")?.values ?? [];
  const scopes = given("auth-scope")?.values ?? [];
  const principalClaim = claim?.values.at(-1);
  return {
    type: "oauth",
    resource: resource.values.at(-1)!,
    authorizationServers: issuers.values,
    ...(jwksUrl !== undefined ? { jwksUrl } : {}),
    ...(audience.length > 0 ? { audience } : {}),
    ...(scopes.length > 0 ? { requiredScopes: scopes } : {}),
    ...(principalClaim !== undefined ? { principalClaim } : {}),
    ...(allowInsecureHttp ? { allowInsecureHttp: true } : {}),
  };
}
