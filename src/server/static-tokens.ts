// Static endpoint auth: bearer tokens listed in an environment variable (`MCP_TOKENS=token-a,token-b`), compared in
// constant time. Each token is its own caller: `static:<index>`. An entry may name its token (`reader=token-a`): the
// caller is then `static:<name>` and its `token` claim the name, which profiles match on; unnamed ones are `#<n>`.
// A bearer token (RFC 6750's b64token) has `=` only at its end, so `name=` before other characters is never a token.

import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AuthMode, Principal } from "./auth-mode.js";
import { authConfigError, type StaticTokenAuthConfig } from "./auth-config.js";
import { InvalidToken } from "./auth-refusals.js";
import { bearerToken, TOKEN_CHARS } from "./bearer.js";

/** Tokens shorter than this are accepted with a warning: easy to guess. */
const SHORT_TOKEN = 16;

export class StaticTokens implements AuthMode {
  readonly challenge = {};
  private readonly digests: Buffer[];
  /** Each token's name, or undefined. */
  private readonly names: Array<string | undefined>;

  constructor({
    config: { tokenEnv },
    env,
    log,
  }: {
    config: StaticTokenAuthConfig;
    env: Record<string, string | undefined>;
    log?: ((line: string) => void) | undefined;
  }) {
    if (!tokenEnv) throw authConfigError("the name of the token variable is empty");
    const value = env[tokenEnv];
    const entries = (value ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map(namedToken);
    const tokens = entries.map((entry) => entry.token);
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
    const badName = entries.findIndex(({ name }) => name !== undefined && !TOKEN_NAME.test(name));
    if (badName >= 0)
      throw authConfigError(
        `the name of token #${badName + 1} in ${tokenEnv} must start with a letter and hold only letters, digits, '_', '.' and '-'`,
      );
    this.names = entries.map((entry) => entry.name);
    const twice = this.names.find((name, i) => name !== undefined && this.names.indexOf(name) !== i);
    if (twice !== undefined) throw authConfigError(`two tokens in ${tokenEnv} are named '${twice}'`);
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
    const name = this.names[match];
    if (name !== undefined) return { key: `static:${name}`, claims: { token: name }, scopes: [] };
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

const TOKEN_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** `name=token` or a bare token: the first `=` names the token when something other than `=` follows it. */
function namedToken(entry: string): { name?: string; token: string } {
  const equals = entry.indexOf("=");
  if (equals < 0 || /^=*$/.test(entry.slice(equals + 1))) return { token: entry };
  return { name: entry.slice(0, equals).trim(), token: entry.slice(equals + 1).trim() };
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
