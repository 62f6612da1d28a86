// Users' tokens (sign-in mode) shared by every replica: one Redis hash per principal, keyed by a digest of it, with
// a field per scheme named by the entry's id (a digest of principal and scheme) and a value sealed exactly as the
// file store seals it (sealed-tokens.ts). Redis holds no token, principal or scheme name in clear, and never the key.
// A reader sees the old entry or the new (HSET replaces one field at once); Redis unreachable is an error naming it,
// so the call needing the token sends nothing.

import { createHash } from "node:crypto";
import { UserError } from "../../catalog/errors.js";
import { entryId, openEntry, readSealed, sealEntry } from "../sealed-tokens.js";
import { type TokenKey as EncryptionKey, TOKEN_KEY_VARIABLE } from "../token-keys.js";
import type { StoredTokens, TokenKey, TokenStore } from "../token-store.js";
import type { RedisConnection } from "./redis.js";

export const TOKENS_PREFIX = "openapi-mcp:tokens:";

export class RedisTokenStore implements TokenStore {
  private readonly redis: RedisConnection;
  private readonly keys: readonly EncryptionKey[];

  constructor({ redis, keys }: { redis: RedisConnection; keys: readonly EncryptionKey[] }) {
    this.redis = redis;
    this.keys = keys;
  }

  async get(key: TokenKey): Promise<StoredTokens | undefined> {
    const id = entryId(key);
    const value = await this.send(["HGET", hashKey(key.principal), id]);
    if (typeof value !== "string") return undefined;
    const sealed = readSealed(parse(value));
    const opened = sealed ? openEntry({ id, sealed, keys: this.keys }) : undefined;
    if (!opened || opened.principal !== key.principal || opened.scheme !== key.scheme) throw this.unreadable();
    return opened.tokens;
  }

  async put({ principal, scheme, tokens }: TokenKey & { tokens: StoredTokens }): Promise<void> {
    const [first] = this.keys;
    if (!first) throw this.unreadable();
    const sealed = sealEntry({ entry: { principal, scheme, tokens }, key: first });
    await this.send(["HSET", hashKey(principal), entryId({ principal, scheme }), JSON.stringify(sealed)]);
  }

  async delete(key: TokenKey): Promise<boolean> {
    return (await this.send(["HDEL", hashKey(key.principal), entryId(key)])) === 1;
  }

  async list(principal: string): Promise<string[]> {
    const reply = await this.send(["HGETALL", hashKey(principal)]);
    // RESP2 answers a flat list of field, value; RESP3 a map.
    const pairs: Array<[string, unknown]> = Array.isArray(reply)
      ? Array.from({ length: reply.length / 2 }, (_, i) => [String(reply[2 * i]), reply[2 * i + 1]])
      : reply instanceof Map
        ? [...reply.entries()].map(([field, value]) => [String(field), value])
        : Object.entries((reply ?? {}) as Record<string, unknown>);
    return pairs.flatMap(([id, value]) => {
      const sealed = readSealed(parse(String(value)));
      const opened = sealed ? openEntry({ id, sealed, keys: this.keys }) : undefined;
      return opened?.principal === principal ? [opened.scheme] : [];
    });
  }

  private async send(args: string[]): Promise<unknown> {
    try {
      return await this.redis.sendCommand(args);
    } catch (error) {
      throw new UserError({
        code: "E_TOKEN_STORE",
        message: `the shared token store (Redis) is unreachable (${error instanceof Error ? error.message : String(error)}); try again in a minute`,
      });
    }
  }

  private unreadable(): UserError {
    return new UserError({
      code: "E_TOKEN_STORE",
      message: `an entry of the shared token store (Redis) does not decrypt with the keys in ${TOKEN_KEY_VARIABLE}: every replica needs the same keys (the first encrypts, each one listed decrypts); nothing was changed`,
    });
  }
}

/** The principal's hash: a digest, so Redis does not list who signed in. */
function hashKey(principal: string): string {
  return `${TOKENS_PREFIX}${createHash("sha256")
    .update(JSON.stringify(["openapi-mcp user tokens of", principal]))
    .digest("base64url")}`;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
