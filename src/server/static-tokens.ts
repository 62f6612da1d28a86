// Static endpoint auth: bearer tokens listed in an environment variable (`MCP_TOKENS=token-a,token-b`), compared in
// constant time. Each token is its own caller: `static:<index>`.

import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AuthMode, Principal } from "./auth.js";
import { authConfigError, type StaticTokenAuthConfig } from "./auth-config.js";
import { InvalidToken } from "./auth-refusals.js";
import { bearerToken, TOKEN_CHARS } from "./bearer.js";

/** Tokens shorter than this are accepted with a warning: easy to guess. */
const SHORT_TOKEN = 16;

export class StaticTokens implements AuthMode {
  readonly challenge = {};
  private readonly digests: Buffer[];

  constructor({
    config: { tokenEnv },
    env,
    log,
  }: {
    config: StaticTokenAuthConfig;
    env: Record<string, string | undefined>;
    log?: (line: string) => void;
  }) {
    if (!tokenEnv) throw authConfigError("the name of the token variable is empty");
    const value = env[tokenEnv];
    const tokens = (value ?? "")
      .split(",")
      .map((token) => token.trim())
      .filter(Boolean);
    if (tokens.length === 0) {
      throw authConfigError(
        `environment variable ${tokenEnv} is ${value === undefined ? "not set" : "empty"}; ` +
          "set it to one or more bearer tokens, comma-separated",
      );
    }
    const bad = tokens.findIndex((token) => !TOKEN_CHARS.test(token));
    if (bad >= 0) throw authConfigError(`token #${bad + 1} in ${tokenEnv} has characters a bearer token cannot carry`);
    const short = tokens.filter((token) => token.length < SHORT_TOKEN).length;
    if (short > 0) {
      log?.(`warning: ${short} token(s) in ${tokenEnv} are shorter than ${SHORT_TOKEN} characters: easy to guess`);
    }
    this.digests = tokens.map(sha256);
  }

  async verify(req: IncomingMessage): Promise<Principal> {
    const match = this.indexOf(bearerToken(req));
    if (match < 0) {
      throw new InvalidToken({
        description: "The token is not valid",
        message: "invalid bearer token",
        reason: "unknown bearer token",
      });
    }
    return { key: `static:${match}`, claims: { token: `#${match + 1}` }, scopes: [] };
  }

  servePublic(): boolean {
    return false;
  }

  warmUp(): void {}

  /**
   * Which configured token this is, or -1. Equal-length digests compared in constant time, every one of them:
   * neither the length of a configured token nor which one matched shows in the timing.
   */
  private indexOf(token: string): number {
    const presented = sha256(token);
    let match = -1;
    this.digests.forEach((digest, index) => {
      if (timingSafeEqual(digest, presented) && match < 0) match = index;
    });
    return match;
  }
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
