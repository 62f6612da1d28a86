// Users' tokens (sign-in mode) shared by every replica: one Redis hash per principal, named by a keyed digest of it,
// with a field per scheme named by the entry's id (a keyed digest of principal and scheme) and a value sealed exactly
// as the file store seals it (sealed-tokens.ts). The digests are HMACs under a key derived from OPENAPI_MCP_TOKEN_KEY,
// so Redis holds no token, principal or scheme name in clear, nor a digest a guessed principal could be checked
// against, and never the key. Each key names what it sealed: an entry is looked for under every key's names (one
// round trip) and moved to the first key's when read, as is one a version before keyed names wrote (unkeyed digests,
// under LEGACY_PREFIX). A reader sees the old entry or the new; Redis unreachable is an error naming it, so the call
// needing the token sends nothing.

import { createHash } from "node:crypto";
import { UserError } from "../../catalog/errors.js";
import { entryId, keyedName, legacyEntryId, openEntry, readSealed, sealEntry } from "../sign-in/sealed-tokens.js";
import { type TokenKey as EncryptionKey, TOKEN_KEY_VARIABLE } from "../sign-in/token-keys.js";
import type { StoredTokens, TokenKey, TokenStore } from "../sign-in/token-store.js";
import type { RedisConnection } from "./redis.js";

export const TOKENS_PREFIX = "openapi-mcp:user-tokens:";
/** Where versions before keyed names kept users' tokens: read to move them, never written. */
export const LEGACY_PREFIX = "openapi-mcp:tokens:";

/** Where an entry may be: its hash and field under one key (or the legacy names), and whether that is the first. */
interface Place {
  hash: string;
  field: string;
  first: boolean;
}

export class RedisTokenStore implements TokenStore {
  private readonly redis: RedisConnection;
  private readonly keys: readonly EncryptionKey[];

  constructor({ redis, keys }: { redis: RedisConnection; keys: readonly EncryptionKey[] }) {
    this.redis = redis;
    this.keys = keys;
  }

  async get(key: TokenKey): Promise<StoredTokens | undefined> {
    const places = this.places(key);
    const values = await Promise.all(places.map(({ hash, field }) => this.send(["HGET", hash, field])));
    const index = values.findIndex((value) => typeof value === "string");
    const place = places[index];
    if (!place) return undefined;
    const sealed = readSealed(parse(String(values[index])));
    const opened = sealed ? openEntry({ id: place.field, sealed, keys: this.keys }) : undefined;
    if (!opened || opened.principal !== key.principal || opened.scheme !== key.scheme) throw this.unreadable();
    // Named under an older key, or the legacy way: moved under the first key's names (and so sealed with it).
    if (!place.first) await this.put({ ...key, tokens: opened.tokens });
    return opened.tokens;
  }

  async put({ principal, scheme, tokens }: TokenKey & { tokens: StoredTokens }): Promise<void> {
    const [first] = this.keys;
    if (!first) throw this.unreadable();
    const [newest, ...older] = this.places({ principal, scheme });
    const sealed = sealEntry({ entry: { principal, scheme, tokens }, key: first });
    await this.send(["HSET", newest!.hash, newest!.field, JSON.stringify(sealed)]);
    // Written first, then the older names dropped: a reader in between finds one or the other.
    await Promise.all(older.map(({ hash, field }) => this.send(["HDEL", hash, field])));
  }

  async delete(key: TokenKey): Promise<boolean> {
    const deleted = await Promise.all(this.places(key).map(({ hash, field }) => this.send(["HDEL", hash, field])));
    return deleted.some((count) => count === 1);
  }

  async list(principal: string): Promise<string[]> {
    const hashes = [...new Set(this.places({ principal, scheme: "" }).map(({ hash }) => hash))];
    const replies = await Promise.all(hashes.map((hash) => this.send(["HGETALL", hash])));
    const schemes = replies.flatMap((reply) =>
      fields(reply).flatMap(([id, value]) => {
        const sealed = readSealed(parse(String(value)));
        const opened = sealed ? openEntry({ id, sealed, keys: this.keys }) : undefined;
        return opened?.principal === principal ? [opened.scheme] : [];
      }),
    );
    return [...new Set(schemes)];
  }

  /** Every place an entry of `key` may be: under the first key's names, each older key's, then the legacy names. */
  private places({ principal, scheme }: TokenKey): Place[] {
    const keyed = this.keys.map((key, index) => ({
      hash: TOKENS_PREFIX + keyedName({ key, parts: ["openapi-mcp user tokens of", principal] }),
      field: entryId({ principal, scheme, key }),
      first: index === 0,
    }));
    return [...keyed, { hash: legacyHash(principal), field: legacyEntryId({ principal, scheme }), first: false }];
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

/** The principal's hash as versions before keyed names named it (an unkeyed digest): only read and emptied. */
function legacyHash(principal: string): string {
  return `${LEGACY_PREFIX}${createHash("sha256")
    .update(JSON.stringify(["openapi-mcp user tokens of", principal]))
    .digest("base64url")}`;
}

/** HGETALL's reply as pairs: RESP2 answers a flat list of field, value; RESP3 a map. */
function fields(reply: unknown): Array<[string, unknown]> {
  if (Array.isArray(reply))
    return Array.from({ length: reply.length / 2 }, (_, i) => [String(reply[2 * i]), reply[2 * i + 1]]);
  if (reply instanceof Map) return [...reply.entries()].map(([field, value]) => [String(field), value]);
  return Object.entries((reply ?? {}) as Record<string, unknown>);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
