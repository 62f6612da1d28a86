// The keys that encrypt stored user tokens (file-token-store.ts), from one environment variable: a comma-separated
// list of 32-byte keys, each as 64 hex digits or base64 (`openssl rand -base64 32`). The first encrypts, every one
// decrypts, so a key is rotated by putting a new one first and keeping the old until every entry was written again.
// Each key also names what it encrypts (a keyed digest of principal and scheme: sealed-tokens.ts), with a key of
// its own derived from it, so a store's names tell nobody without the key who signed in.

import { createHash, hkdfSync } from "node:crypto";
import { UserError } from "../../catalog/errors.js";

export const TOKEN_KEY_VARIABLE = "OPENAPI_MCP_TOKEN_KEY";

export interface TokenKey {
  /** A short, public name of the key (a digest of it), stored beside what it encrypted. */
  id: string;
  key: Buffer;
  /** Derived from `key` (HKDF, its own label): names entries by a keyed digest (HMAC) of whose they are. */
  names: Buffer;
}

/** The keys in `value` (the variable's text), the encrypting one first; a UserError says what is wrong with which. */
export function readTokenKeys({
  value,
  variable = TOKEN_KEY_VARIABLE,
  purpose,
}: {
  value: string | undefined;
  variable?: string;
  /** What needs them, for the message when none are set. */
  purpose: string;
}): TokenKey[] {
  const parts = (value ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length === 0)
    throw new UserError({
      code: "E_TOKEN_KEY",
      message: `${variable} is not set: ${purpose} keeps users' tokens encrypted with it. Set it to a 32-byte key (make one with: openssl rand -base64 32); several, comma-separated, rotate keys (the first encrypts)`,
    });
  return parts.map((part, index) => {
    const key = /^[0-9a-f]{64}$/i.test(part) ? Buffer.from(part, "hex") : decodeBase64(part);
    if (key?.length !== 32) {
      const which = parts.length > 1 ? `key ${index + 1} of ${parts.length}` : "the key";
      throw new UserError({
        code: "E_TOKEN_KEY",
        message: `${variable}: ${which} is not 32 bytes as 64 hex digits or base64 (make one with: openssl rand -base64 32)`,
      });
    }
    return {
      id: createHash("sha256").update("openapi-mcp token key\0").update(key).digest("hex").slice(0, 12),
      key,
      names: Buffer.from(hkdfSync("sha256", key, "openapi-mcp user tokens", "entry names", 32)),
    };
  });
}

function decodeBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  return Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}
