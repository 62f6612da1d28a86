// How a user's tokens are kept at rest, by every token store (the file, Redis): AES-256-GCM with a key from
// OPENAPI_MCP_TOKEN_KEY (token-keys.ts), under an id that is a keyed digest (HMAC) of principal and scheme and bound
// to it as associated data, so an entry moved to another id does not decrypt. The principal and scheme are inside
// the ciphertext; outside it there are only keyed digests (nobody without the key can test whether `static:alice`
// signed in) and the public id of the key. Each key names the entries it seals: a store looks under every key's name.

import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import type { TokenKey as EncryptionKey } from "./token-keys.js";
import type { StoredTokens, TokenKey } from "./token-store.js";

export interface Sealed {
  /** Which key encrypted it (token-keys.ts's id). */
  key: string;
  iv: string;
  /** Ciphertext and the 16-byte tag, base64. */
  data: string;
}

/** An entry in clear. */
export interface Opened extends TokenKey {
  tokens: StoredTokens;
}

/** The entry's id under `key`: a keyed digest, so a store does not list who signed in where. */
export function entryId({ principal, scheme, key }: TokenKey & { key: EncryptionKey }): string {
  return keyedName({ key, parts: ["openapi-mcp user token", principal, scheme] });
}

/** A keyed digest of `parts` (JSON) under `key`'s naming key. */
export function keyedName({ key, parts }: { key: EncryptionKey; parts: unknown }): string {
  return createHmac("sha256", key.names).update(JSON.stringify(parts)).digest("base64url");
}

/**
 * The id versions before keyed names gave an entry (an unkeyed SHA-256 anyone can compute from a principal): read
 * only to move such an entry to its keyed id, never written.
 */
export function legacyEntryId({ principal, scheme }: TokenKey): string {
  return createHash("sha256")
    .update(JSON.stringify(["openapi-mcp user token", principal, scheme]))
    .digest("base64url");
}

/** Encrypted with `key` (the first of the keys), bound to the entry's id under that key. */
export function sealEntry({ entry, key }: { entry: Opened; key: EncryptionKey }): Sealed {
  const { principal, scheme, tokens } = entry;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key.key, iv);
  cipher.setAAD(Buffer.from(entryId({ principal, scheme, key })));
  const plain = Buffer.from(JSON.stringify({ principal, scheme, tokens }));
  const data = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return { key: key.id, iv: iv.toString("base64"), data: data.toString("base64") };
}

/** The entry in clear, or undefined when none of `keys` opens it (or it was changed, or moved to another id). */
export function openEntry({
  id,
  sealed,
  keys,
}: {
  id: string;
  sealed: Sealed;
  keys: readonly EncryptionKey[];
}): Opened | undefined {
  const key = keys.find((k) => k.id === sealed.key);
  if (!key) return undefined;
  try {
    const data = Buffer.from(sealed.data, "base64");
    const decipher = createDecipheriv("aes-256-gcm", key.key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(id));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const plain = Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]);
    return JSON.parse(plain.toString("utf8")) as Opened;
  } catch {
    return undefined;
  }
}

/** A stored value read back as a sealed entry, or undefined when it is not one. */
export function readSealed(value: unknown): Sealed | undefined {
  const { key, iv, data } = (value ?? {}) as Record<string, unknown>;
  return typeof key === "string" && typeof iv === "string" && typeof data === "string" ? { key, iv, data } : undefined;
}
