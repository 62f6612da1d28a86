// OAuth endpoint auth: the MCP endpoint as an OAuth 2.0 protected resource (MCP authorization, RFC 9728 metadata,
// RFC 6750 challenges). JWT access tokens are verified against the issuer's keys (issuer-keys.ts), bound to this
// resource by their audience, each naming its caller by `sub` (or the configured claim).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { JWTPayload } from "jose";
import { checkIssuedAt, claimedIssuer, grantedScopes, verifiedClaims } from "./access-token.js";
import type { AuthMode, Principal } from "./auth-mode.js";
import type { OAuthResourceAuthConfig } from "./auth-config.js";
import { type ChallengeContext, InsufficientScope, InvalidToken } from "./auth-refusals.js";
import { bearerToken } from "./bearer.js";
import { IssuerKeys } from "./issuer-keys.js";
import { type ResourceSettings, resolveResourceConfig } from "./resource-config.js";

/** Public, and fetched by browser-based clients too: any origin may read the metadata. */
const METADATA_CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "mcp-protocol-version",
};

export class ProtectedResource implements AuthMode {
  readonly challenge: ChallengeContext;
  private readonly settings: ResourceSettings;
  private readonly keys: IssuerKeys;
  private readonly log: (line: string) => void;

  constructor({
    config,
    endpointPath,
    log,
  }: { config: OAuthResourceAuthConfig; endpointPath: string; log?: ((line: string) => void) | undefined }) {
    this.settings = resolveResourceConfig({ config, endpointPath });
    const { requiredScopes, metadataUrl, jwksUrl, allowInsecureHttp } = this.settings;
    this.challenge = {
      ...(requiredScopes.length ? { scope: requiredScopes.join(" ") } : {}),
      resourceMetadata: metadataUrl,
    };
    this.keys = new IssuerKeys({ allowInsecureHttp, ...(jwksUrl ? { jwksUrl } : {}) });
    this.log = log ?? (() => {});
  }

  /** The request's caller, once its token passed every check; throws the refusal of the first check it fails. */
  async verify(req: IncomingMessage): Promise<Principal> {
    const token = bearerToken(req);
    const issuer = claimedIssuer({ token, issuers: this.settings.issuers });
    const payload = await verifiedClaims({ token, issuer, keys: this.keys, settings: this.settings });
    checkIssuedAt({ payload, clockTolerance: this.settings.clockTolerance });
    const name = this.callerName(payload);
    const scopes = this.sufficientScopes(payload);
    const subject = typeof payload.sub === "string" ? payload.sub : undefined;
    const clientId = [payload.client_id, payload.azp].find((value): value is string => typeof value === "string");
    return {
      key: JSON.stringify([issuer, this.settings.principalClaim, name, clientId ?? null]),
      claims: { ...payload },
      issuer,
      ...(subject !== undefined ? { subject } : {}),
      ...(clientId !== undefined ? { clientId } : {}),
      scopes,
    };
  }

  servePublic({ req, res, path }: { req: IncomingMessage; res: ServerResponse; path: string }): boolean {
    if (!this.settings.metadataPaths.has(path)) return false;
    if (req.method === "OPTIONS") {
      res.writeHead(204, METADATA_CORS).end();
    } else if (req.method === "GET" || req.method === "HEAD") {
      res
        .writeHead(200, {
          "content-type": "application/json",
          "cache-control": "public, max-age=300",
          ...METADATA_CORS,
        })
        .end(req.method === "GET" ? this.settings.metadata : undefined);
    } else {
      res
        .writeHead(405, { "content-type": "application/json", allow: "GET, HEAD, OPTIONS" })
        .end(JSON.stringify({ error: "Method not allowed" }));
    }
    return true;
  }

  warmUp(): void {
    this.keys.warmUp({ issuers: this.settings.issuers, log: this.log });
  }

  /** Every caller has a name of its own: two tokens without one must never become the same principal. */
  private callerName(payload: JWTPayload): string {
    const claim = this.settings.principalClaim;
    const name = payload[claim];
    if (typeof name === "string" && name !== "") return name;
    throw new InvalidToken({
      description: `The token's ${claim} claim does not name its holder`,
      reason: `${claim} is not a non-empty string`,
    });
  }

  /** The token's scopes, when they include every required one. */
  private sufficientScopes(payload: JWTPayload): string[] {
    const scopes = grantedScopes(payload);
    const missing = this.settings.requiredScopes.filter((required) => !scopes.includes(required));
    if (missing.length > 0) throw new InsufficientScope(missing);
    return scopes;
  }
}
