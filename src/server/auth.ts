// Authentication of the MCP endpoint itself (`--transport http`): who may talk to this server, as opposed to the
// credentials the engine injects upstream. Two modes:
//  - static: bearer tokens listed in an environment variable, compared in constant time (static-tokens.ts);
//  - oauth: an OAuth 2.0 protected resource (protected-resource.ts): JWT access tokens verified against the issuer's
//    keys, bound to this resource by their audience, each naming its caller.
// Once accepted, the caller's token is removed from the request, so neither the SDK's request info nor a tool call can
// see it, and nothing is ever derived from caller-supplied tenant or org headers. It is kept beside the verified
// caller (caller.ts) only for an upstream RFC 8693 token exchange, which sends it to the identity provider alone.

import { type AuthConfig, authConfigError } from "./auth-config.js";
import { isAuthRefusal, refusalAnswer } from "./auth-refusals.js";
import { bearerToken, stripAuthorization } from "./bearer.js";
import { ProtectedResource } from "./protected-resource.js";
import { StaticTokens } from "./static-tokens.js";
import type { AuthMode, EndpointAuth } from "./auth-mode.js";

export interface EndpointAuthOptions {
  /** Where `tokenEnv` is read. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
  /** The local path of the MCP endpoint, whose metadata route is served beside the resource's own. */
  endpointPath?: string;
}

/** Builds the endpoint's authentication from its config; a bad config or a missing variable throws a UserError. */
export function createEndpointAuth(config: AuthConfig, options: EndpointAuthOptions = {}): EndpointAuth {
  const { env = process.env, log, endpointPath = "/mcp" } = options;
  if (config.type === "static") return withRefusals(new StaticTokens({ config, env, log }));
  if (config.type === "oauth") return withRefusals(new ProtectedResource({ config, endpointPath, log }));
  throw authConfigError(`unknown type ${JSON.stringify((config as { type?: unknown }).type)}`);
}

/** A mode's checks answered: a principal with the token removed from the request, or its refusal mapped to HTTP. */
function withRefusals(mode: AuthMode): EndpointAuth {
  return {
    async authenticate(req) {
      try {
        const principal = await mode.verify(req);
        const token = bearerToken(req);
        stripAuthorization(req);
        return { ok: true, principal, token };
      } catch (error) {
        if (!isAuthRefusal(error)) throw error;
        return { ok: false, ...refusalAnswer(error, mode.challenge) };
      }
    },
    servePublic: (args) => mode.servePublic(args),
    warmUp: () => mode.warmUp(),
  };
}
