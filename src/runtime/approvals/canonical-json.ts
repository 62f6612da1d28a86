// One text per JSON value, whatever order its keys came in (RFC 8785's: keys sorted by UTF-16 code units, numbers
// and strings as JSON.stringify writes them), and the SHA-256 of that text: what an approval state binds a call's
// arguments by, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same call and anything else is another.

import { createHash } from "node:crypto";

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    // As JSON.stringify does: a key whose value is undefined is not there.
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The arguments' digest: SHA-256 of their canonical JSON, base64url. */
export function argumentDigest(args: unknown): string {
  return createHash("sha256")
    .update(canonicalJson(args ?? {}))
    .digest("base64url");
}
