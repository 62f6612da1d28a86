// A value sealed into one URL-safe text (AES-256-GCM: 12-byte IV, ciphertext, 16-byte tag, base64url), under a key
// derived from the token keys for one purpose only, so what is sealed for one use never opens for another. The first
// key seals; every key opens (rotation, as token-keys.ts describes).

import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import type { TokenKey as EncryptionKey } from "./token-keys.js";

export class SealedText {
  private readonly keys: Buffer[];

  constructor({ keys, purpose }: { keys: readonly EncryptionKey[]; purpose: string }) {
    this.keys = keys.map((k) => createHmac("sha256", k.key).update(purpose).digest());
  }

  seal(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.keys[0]!, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(value)), cipher.final(), cipher.getAuthTag()]);
    return Buffer.concat([iv, data]).toString("base64url");
  }

  /** The value in clear, or undefined when no key opens it (forged, damaged, or sealed for another purpose). */
  open(text: string): unknown {
    const bytes = Buffer.from(text, "base64url");
    if (bytes.length < 12 + 16) return undefined;
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(bytes.length - 16));
        const plain = Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
        return JSON.parse(plain.toString("utf8")) as unknown;
      } catch {
        // The next key, if any.
      }
    }
    return undefined;
  }
}
