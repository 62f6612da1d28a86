// Everything a Redis holds, as text, for tests that check what is (not) in it: every key (SCAN), its type, and its
// value (GET, HGETALL, ZRANGE, SMEMBERS, LRANGE), with base64 in values also decoded, since a token written as
// base64 is as readable as one in clear.

import { connectRedis } from "../../src/runtime/state/redis.js";

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
