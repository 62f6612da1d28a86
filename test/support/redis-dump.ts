// Everything a Redis holds, as text, for tests that check what is (not) in it: every key (SCAN), its type, and its
// value (GET, HGETALL, ZRANGE, SMEMBERS, LRANGE), with base64 in values also decoded, since a token written as
// base64 is as readable as one in clear.

import { createHash } from "node:crypto";
import { connectRedis } from "../../src/runtime/shared/redis.js";

export async function dumpRedis(url: string): Promise<string> {
  const redis = await connectRedis({ url, log: () => {} });
  const lines: string[] = [];
  try {
    let cursor = "0";
    do {
      const [next, keys] = (await redis.sendCommand(["SCAN", cursor, "COUNT", "1000"])) as [string, string[]];
      cursor = next;
      for (const key of keys) {
        const type = String(await redis.sendCommand(["TYPE", key]));
        const read: Record<string, string[]> = {
          string: ["GET", key],
          hash: ["HGETALL", key],
          zset: ["ZRANGE", key, "0", "-1", "WITHSCORES"],
          set: ["SMEMBERS", key],
          list: ["LRANGE", key, "0", "-1"],
        };
        const command = read[type];
        const value = command ? await redis.sendCommand(command) : `(a ${type})`;
        const text = JSON.stringify(value);
        lines.push(`${key} ${type} ${text}`, ...decoded(text));
      }
    } while (cursor !== "0");
  } finally {
    await redis.close();
  }
  return lines.join("\n");
}

/** Every run of base64 (or base64url) in `text`, decoded. */
function decoded(text: string): string[] {
  return [...text.matchAll(/[A-Za-z0-9+/_-]{16,}={0,2}/g)].map(([run]) =>
    Buffer.from(run.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1"),
  );
}

/**
 * Unkeyed digests anyone could compute from a guess of `texts` (a principal, a scheme): SHA-256, SHA-1, MD5 and
 * SHA-512 of each text and of the JSON arrays earlier versions hashed, in hex, base64 and base64url. A dump holding
 * none of them (nor the texts) tells a reader nothing a guessed principal could be checked against.
 */
export function unkeyedDigests(texts: readonly string[]): string[] {
  const inputs = new Set<string>(texts);
  for (const text of texts) {
    inputs.add(JSON.stringify(["openapi-mcp user tokens of", text]));
    for (const other of texts) inputs.add(JSON.stringify(["openapi-mcp user token", text, other]));
  }
  const found = new Set<string>(texts);
  for (const input of inputs)
    for (const algorithm of ["sha256", "sha1", "md5", "sha512"])
      for (const encoding of ["hex", "base64", "base64url"] as const)
        found.add(createHash(algorithm).update(input).digest(encoding));
  return [...found];
}
