// Values the replicas keep in Redis, sealed: AES-256-GCM under keys derived (HKDF-SHA-256) from the replicas' shared
// secrets (--state-secret, MCP_STATE_SECRET): the first seals, every one opens, as for approval states
// (../approvals/approval-state-keys.ts). Each value is bound to its Redis key (associated data), so a value copied
// under another key does not open. Key names are keyed digests (HMAC) of what they stand for, so no client id,
// principal or digest of a client secret that could be guessed offline shows in Redis; the names follow the first
// secret, so a replica with another first secret (mid-rotation) keeps its own entries until it has the same one.

import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { checkedSecrets } from "../approvals/approval-state-keys.js";

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class Sealer {
  private readonly keys: Buffer[];
  private readonly nameKey: Buffer;

  /** `purpose` separates the keys of one use from another's; `secrets` must hold at least one. */
  constructor({ secrets, purpose, source }: { secrets: readonly string[]; purpose: string; source: string }) {
    const given = checkedSecrets({ secrets, source });
    if (given.length === 0) throw new Error("a Sealer needs at least one secret");
    const derive = (secret: string, use: string): Buffer =>
      Buffer.from(hkdfSync("sha256", secret, "openapi-mcp shared state", `${purpose} ${use}`, 32));
    this.keys = given.map((secret) => derive(secret, "seal"));
    this.nameKey = derive(given[0]!, "name");
  }

  /** `prefix` followed by a keyed digest of `parts` (JSON): the same on every replica with the same first secret. */
  name({ prefix, parts }: { prefix: string; parts: unknown }): string {
    return prefix + createHmac("sha256", this.nameKey).update(JSON.stringify(parts)).digest("base64url");
  }

  /** `text` sealed for the key `name`: base64 of IV, ciphertext and tag. */
  seal({ name, text }: { name: string; text: string }): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.keys[0]!, iv);
    cipher.setAAD(Buffer.from(name));
    const data = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return Buffer.concat([iv, data, cipher.getAuthTag()]).toString("base64");
  }

  /** The text sealed under `name` by any of the keys, or undefined (another secret, another key, or tampered). */
  open({ name, sealed }: { name: string; sealed: string }): string | undefined {
    const bytes = Buffer.from(sealed, "base64");
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(name));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]).toString("utf8");
      } catch {
        // Not this key: try the next.
      }
    }
    return undefined;
  }
}
