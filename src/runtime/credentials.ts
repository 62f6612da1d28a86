// Credentials, applied to a prepared request from the environment: the model never sees them. The first
// alternative of the tool's security requirement whose values are all configured is used.

import type { CredentialScheme, SecurityRequirement, ValueSource } from "../catalog/types.js";
import type { PreparedRequest } from "./types.js";

export type Environment = Record<string, string | undefined>;

function resolveValue(source: ValueSource, env: Environment): string | undefined {
  const value = "env" in source ? env[source.env] : source.value;
  return value === undefined || value === "" ? undefined : value;
}

interface Contribution {
  in: "header" | "query" | "cookie";
  name: string;
  value: string;
  /** The secret values within (a basic header's encoded pair counts as well as the password). */
  secrets: string[];
}

/** Header, query and cookie values a scheme adds, or undefined when its values are not configured. */
function contributionOf(scheme: CredentialScheme, env: Environment): Contribution[] | undefined {
  switch (scheme.type) {
    case "apiKey": {
      const value = resolveValue(scheme.value, env);
      return value === undefined ? undefined : [{ in: scheme.in, name: scheme.parameter, value, secrets: [value] }];
    }
    case "bearer": {
      const token = resolveValue(scheme.token, env);
      return token === undefined ? undefined : [{ in: "header", name: "authorization", value: `Bearer ${token}`, secrets: [token] }];
    }
    case "basic": {
      const username = resolveValue(scheme.username, env);
      const password = resolveValue(scheme.password, env);
      if (username === undefined || password === undefined) return undefined;
      const pair = `${username}:${password}`;
      return [{ in: "header", name: "authorization", value: `Basic ${Buffer.from(pair).toString("base64")}`, secrets: [password, pair] }];
    }
    default:
      // OAuth 2.0 client credentials arrive with the guard-rail step; unsupported schemes never apply.
      return undefined;
  }
}

/** The request with credentials added, and the secret values it now carries (to be masked wherever they show). */
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
}): { request: PreparedRequest; secrets: string[] } {
  for (const alternative of security) {
    const parts = alternative.schemes.map((s) => {
      const scheme = credentials[s.id];
      return scheme ? contributionOf(scheme, env) : undefined;
    });
    if (parts.some((p) => p === undefined)) continue;
    const headers = { ...request.headers };
    let path = request.path;
    const secrets: string[] = [];
    for (const part of parts.flat()) {
      if (!part) continue;
      secrets.push(...part.secrets);
      if (part.in === "header") headers[part.name.toLowerCase()] = part.value;
      else if (part.in === "cookie") headers.cookie = [headers.cookie, `${part.name}=${encodeURIComponent(part.value)}`].filter(Boolean).join("; ");
      else path += `${path.includes("?") ? "&" : "?"}${encodeURIComponent(part.name)}=${encodeURIComponent(part.value)}`;
    }
    return { request: { ...request, headers, path }, secrets };
  }
  return { request, secrets: [] };
}
