// The file-backed store of users' tokens: encrypted at rest (no token in the file), private, surviving a restart (a
// new store on the same file), keys rotated without losing an entry, a damaged file or a missing key reported by
// name with nothing lost, and entry ids that are keyed digests (a file of the version before is read and moved).

import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileTokenStore } from "../../src/runtime/sign-in/file-token-store.js";
import { readTokenKeys } from "../../src/runtime/sign-in/token-keys.js";
import { unkeyedDigests } from "../support/redis-dump.js";

const keyText = () => randomBytes(32).toString("base64");
const ALICE = { principal: "alice", scheme: "github" };
const BOB = { principal: "bob", scheme: "github" };
const tokens = (name: string) => ({ accessToken: `${name}-access-canary`, refreshToken: `${name}-refresh-canary` });

function storeAt(file: string, value: string) {
  return new FileTokenStore({ file, keys: readTokenKeys({ value, purpose: "the test" }) });
}
const fresh = () => join(mkdtempSync(join(tmpdir(), "token-store-")), "state", "tokens.json");

describe("file token store", () => {
  it("keeps tokens encrypted, private, and across a restart", async () => {
    const file = fresh();
    const key = keyText();
    await storeAt(file, key).put({ ...ALICE, tokens: tokens("alice") });
    await storeAt(file, key).put({ ...BOB, tokens: tokens("bob") });
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("canary");
    expect(text).not.toContain("alice");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700);
    const restarted = storeAt(file, key);
    expect(await restarted.get(ALICE)).toEqual(tokens("alice"));
    expect(await restarted.list("bob")).toEqual(["github"]);
    expect(await restarted.delete(ALICE)).toBe(true);
    expect(await restarted.get(ALICE)).toBeUndefined();
    expect(await restarted.get(BOB)).toEqual(tokens("bob"));
  });

  it("rotates keys: the old still decrypts, a write re-encrypts every entry with the new one", async () => {
    const file = fresh();
    const [oldKey, newKey] = [keyText(), keyText()];
    await storeAt(file, oldKey).put({ ...ALICE, tokens: tokens("alice") });
    const rotated = storeAt(file, `${newKey}, ${oldKey}`);
    expect(await rotated.get(ALICE)).toEqual(tokens("alice"));
    await rotated.put({ ...BOB, tokens: tokens("bob") });
    // The old key can go now: both entries open with the new one alone.
    const newOnly = storeAt(file, newKey);
    expect(await newOnly.get(ALICE)).toEqual(tokens("alice"));
    expect(await newOnly.get(BOB)).toEqual(tokens("bob"));
  });

  it("finds no entry whose key is gone (its id is keyed by it), and keeps that entry through other writes", async () => {
    const file = fresh();
    const [oldKey, newKey] = [keyText(), keyText()];
    await storeAt(file, oldKey).put({ ...ALICE, tokens: tokens("alice") });
    const lost = storeAt(file, newKey);
    // Without the key nobody can tell whose an entry is: alice is asked to sign in again, and gets no tokens.
    expect(await lost.get(ALICE)).toBeUndefined();
    expect(await lost.list("alice")).toEqual([]);
    await lost.put({ ...BOB, tokens: tokens("bob") });
    expect(await storeAt(file, `${newKey},${oldKey}`).get(ALICE)).toEqual(tokens("alice"));
  });

  it("names entries by keyed digests, and moves a file of the version before (unkeyed digests) at its next write", async () => {
    const file = fresh();
    const key = keyText();
    const digests = unkeyedDigests(["alice", "github", "bob"]);
    await storeAt(file, key).put({ ...BOB, tokens: tokens("bob") });
    expect(digests.filter((form) => readFileSync(file, "utf8").includes(form))).toEqual([]);
    // Alice's entry as the version before wrote it: under an unkeyed SHA-256 of principal and scheme.
    const [encryption] = readTokenKeys({ value: key, purpose: "the test" });
    const id = createHash("sha256")
      .update(JSON.stringify(["openapi-mcp user token", "alice", "github"]))
      .digest("base64url");
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", encryption!.key, iv);
    cipher.setAAD(Buffer.from(id));
    const plain = Buffer.from(JSON.stringify({ ...ALICE, tokens: tokens("alice") }));
    const data = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]).toString("base64");
    const entries = { [id]: { key: encryption!.id, iv: iv.toString("base64"), data } };
    writeFileSync(file, JSON.stringify({ format: "openapi-mcp user tokens 1", entries }));
    const store = storeAt(file, key);
    expect(await store.get(ALICE)).toEqual(tokens("alice"));
    await store.put({ ...BOB, tokens: tokens("bob") });
    expect(digests.filter((form) => readFileSync(file, "utf8").includes(form))).toEqual([]);
    expect(await store.get(ALICE)).toEqual(tokens("alice"));
    expect(await store.get(BOB)).toEqual(tokens("bob"));
  });

  it("refuses a damaged file by name and never writes over it", async () => {
    const file = fresh();
    const key = keyText();
    await storeAt(file, key).put({ ...ALICE, tokens: tokens("alice") });
    const damaged = `${readFileSync(file, "utf8").slice(0, 40)}`;
    writeFileSync(file, damaged);
    const store = storeAt(file, key);
    await expect(store.get(ALICE)).rejects.toThrow(`the token store ${file} is damaged: it is not JSON`);
    await expect(store.put({ ...BOB, tokens: tokens("bob") })).rejects.toThrow(/is damaged/);
    expect(readFileSync(file, "utf8")).toBe(damaged);
  });

  it("refuses a tampered entry without giving its tokens", async () => {
    const file = fresh();
    const key = keyText();
    await storeAt(file, key).put({ ...ALICE, tokens: tokens("alice") });
    const json = JSON.parse(readFileSync(file, "utf8"));
    const id = Object.keys(json.entries)[0] as string;
    const data = Buffer.from(json.entries[id].data, "base64");
    data[0] = (data[0] ?? 0) ^ 1;
    json.entries[id].data = data.toString("base64");
    writeFileSync(file, JSON.stringify(json));
    await expect(storeAt(file, key).get(ALICE)).rejects.toThrow(/does not decrypt/);
  });

  it.each([
    [undefined, /OPENAPI_MCP_TOKEN_KEY is not set: the test keeps users' tokens encrypted with it/],
    ["short", /OPENAPI_MCP_TOKEN_KEY: the key is not 32 bytes/],
    [`${"ab".repeat(32)},nope`, /OPENAPI_MCP_TOKEN_KEY: key 2 of 2 is not 32 bytes/],
  ])("refuses the key %s by the variable's name", (value, message) => {
    expect(() => readTokenKeys({ value, purpose: "the test" })).toThrow(message);
  });

  it("reads hex keys", () => {
    expect(readTokenKeys({ value: "ab".repeat(32), purpose: "x" })[0]?.key).toHaveLength(32);
  });
});
