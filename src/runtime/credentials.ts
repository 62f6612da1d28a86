// Credentials, applied to a prepared request from the environment: the model never sees them. The first
// alternative of the tool's security requirement whose values are all configured is used.

import type { CredentialScheme, SecurityRequirement, ValueSource } from "../catalog/types.js";
import type { PreparedRequest } from "./types.js";

export type Environment = Record<string, string | undefined>;

function resolveValue(source: ValueSource, env: Environment): string | undefined {
  const value = "env" in source ? env[source.env] : source.value;
  return value === undefined || value === "" ? undefined : value;
}

/** Header, query and cookie values a scheme adds, or undefined when its values are not configured. */
function contributionOf(scheme: CredentialScheme, env: Environment): Array<{ in: "header" | "query" | "cookie"; name: string; value: string }> | undefined {
  switch (scheme.type) {
    case "apiKey": {
      const value = resolveValue(scheme.value, env);
      return value === undefined ? undefined : [{ in: scheme.in, name: scheme.parameter, value }];
    }
    case "bearer": {
      const token = resolveValue(scheme.token, env);
      return token === undefined ? undefined : [{ in: "header", name: "authorization", value: `Bearer ${token}` }];
    }
    case "basic": {
      const username = resolveValue(scheme.username, env);
      const password = resolveValue(scheme.password, env);
      if (username === undefined || password === undefined) return undefined;
      return [{ in: "header", name: "authorization", value: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` }];
    }
    default:
      // OAuth 2.0 client credentials arrive with the guard-rail step; unsupported schemes never apply.
      return undefined;
  }
}

export function applyCredentials({
  request,
  security,
  credentials,
  env,
}: {
  request: PreparedRequest;
  security: SecurityRequirement[];
  credentials: Record<string, CredentialScheme>;
  env: Environment;
}): PreparedRequest {
  for (const alternative of security) {
    const parts = alternative.schemes.map((s) => {
      const scheme = credentials[s.id];
      return scheme ? contributionOf(scheme, env) : undefined;
    });
    if (parts.some((p) => p === undefined)) continue;
    const headers = { ...request.headers };
    let path = request.path;
    for (const part of parts.flat()) {
      if (!part) continue;
      if (part.in === "header") headers[part.name.toLowerCase()] = part.value;
      else if (part.in === "cookie") headers.cookie = [headers.cookie, `${part.name}=${encodeURIComponent(part.value)}`].filter(Boolean).join("; ");
      else path += `${path.includes("?") ? "&" : "?"}${encodeURIComponent(part.name)}=${encodeURIComponent(part.value)}`;
    }
    return { ...request, headers, path };
  }
  return request;
}
