// The one table from endpoint-auth refusals to HTTP: for each refusal, in each mode, the status, the RFC 6750
// challenge, the JSON-RPC message and the log reason a client or an operator sees.

import { describe, expect, it } from "vitest";
import {
  type AuthRefusal,
  InsufficientScope,
  InvalidToken,
  MalformedAuthorization,
  MissingToken,
  refusalAnswer,
  TokensUnverifiable,
} from "../../src/server/auth-refusals.js";

const METADATA = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const OAUTH = { scope: "mcp:tools", resourceMetadata: METADATA };
const STATIC = {};

describe("refusalAnswer", () => {
  it.each<
    [string, AuthRefusal, object, { status: number; headers: Record<string, string>; message: string; reason: string }]
  >([
    [
      "a malformed header (static)",
      new MalformedAuthorization(),
      STATIC,
      {
        status: 400,
        headers: {
          "www-authenticate": 'Bearer error="invalid_request", error_description="Malformed Authorization header"',
        },
        message: "Bad Request: malformed Authorization header",
        reason: "malformed Authorization header",
      },
    ],
    [
      "a malformed header (oauth: the metadata, no scope)",
      new MalformedAuthorization(),
      OAUTH,
      {
        status: 400,
        headers: {
          "www-authenticate": `Bearer error="invalid_request", error_description="Malformed Authorization header", resource_metadata="${METADATA}"`,
        },
        message: "Bad Request: malformed Authorization header",
        reason: "malformed Authorization header",
      },
    ],
    [
      "no token (static: a bare challenge)",
      new MissingToken(),
      STATIC,
      {
        status: 401,
        headers: { "www-authenticate": "Bearer" },
        message: "Unauthorized: a bearer token is required",
        reason: "no bearer token",
      },
    ],
    [
      "no token (oauth)",
      new MissingToken(),
      OAUTH,
      {
        status: 401,
        headers: { "www-authenticate": `Bearer scope="mcp:tools", resource_metadata="${METADATA}"` },
        message: "Unauthorized: a bearer token is required",
        reason: "no bearer token",
      },
    ],
    [
      "an unknown static token",
      new InvalidToken({
        description: "The token is not valid",
        message: "invalid bearer token",
        reason: "unknown bearer token",
      }),
      STATIC,
      {
        status: 401,
        headers: { "www-authenticate": 'Bearer error="invalid_token", error_description="The token is not valid"' },
        message: "Unauthorized: invalid bearer token",
        reason: "unknown bearer token",
      },
    ],
    [
      "an expired token (oauth)",
      new InvalidToken({
        description: "The token has expired",
        reason: "ERR_JWT_EXPIRED: exp claim timestamp check failed",
      }),
      OAUTH,
      {
        status: 401,
        headers: {
          "www-authenticate": `Bearer error="invalid_token", error_description="The token has expired", scope="mcp:tools", resource_metadata="${METADATA}"`,
        },
        message: "Unauthorized: The token has expired",
        reason: "ERR_JWT_EXPIRED: exp claim timestamp check failed",
      },
    ],
    [
      "a token without a required scope",
      new InsufficientScope(["mcp:tools", "mcp:admin"]),
      OAUTH,
      {
        status: 403,
        headers: {
          "www-authenticate": `Bearer error="insufficient_scope", error_description="The token lacks a required scope", scope="mcp:tools", resource_metadata="${METADATA}"`,
        },
        message: "Forbidden: the token lacks the scope mcp:tools mcp:admin",
        reason: "missing scope mcp:tools mcp:admin",
      },
    ],
    [
      "keys out of reach (no challenge: the token may be fine)",
      new TokensUnverifiable({ issuer: "https://as.example.com", detail: "HTTP 500", retryAfterSeconds: 7 }),
      OAUTH,
      {
        status: 503,
        headers: { "retry-after": "7" },
        message: "Service Unavailable: cannot verify access tokens right now",
        reason: "cannot verify tokens from https://as.example.com: HTTP 500",
      },
    ],
  ])("answers %s", (_, refusal, context, want) => {
    expect(refusalAnswer(refusal, context)).toEqual(want);
  });

  it("keeps quotes and backslashes of its own values out of the challenge", () => {
    const refusal = new InvalidToken({ description: 'The "token" \\ is bad' });
    expect(refusalAnswer(refusal).headers["www-authenticate"]).toBe(
      'Bearer error="invalid_token", error_description="The token  is bad"',
    );
  });
});
