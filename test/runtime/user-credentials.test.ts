// Per-user credentials in the engine: a scheme whose value comes from the caller (here a test mode reading one
// header, standing for the forwarded, sign-in and exchange modes) is placed where the scheme says, per caller, and
// masked; a caller without a value gets an error result saying what to do and nothing is sent; a value the API
// refuses with 401 is forgotten. Against a real upstream on loopback.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Catalog } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { missingCredentials } from "../../src/runtime/credentials/credentials.js";
import { Engine } from "../../src/runtime/engine.js";
import { profiledProvider } from "../../src/runtime/profiles/profiled.js";
import type { Caller } from "../../src/runtime/types.js";
import type { UserCredentials } from "../../src/runtime/credentials/user-credentials.js";
import { fixture } from "../support/fixtures.js";
import { json, status, Upstream } from "../support/upstream.js";

let upstream: Upstream;
let catalog: Catalog;
const forgotten: string[] = [];
const BEARER_API = {
  openapi: "3.0.3",
  info: { title: "Me", version: "1" },
  components: { securitySchemes: { token: { type: "http", scheme: "bearer" } } },
  security: [{ token: [] }],
  paths: { "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } } },
};

/** A test mode: the caller's `x-test-key` header is its value. */
const fromHeader: UserCredentials = {
  mode: "forwarded",
  description: "forwarded from the X-Test-Key header",
  async valueFor({ caller }) {
    const value = caller?.headers["x-test-key"];
    return value ? { value } : { missing: "send your own key in the X-Test-Key header." };
  },
  invalidate({ value }) {
    forgotten.push(value);
  },
};

const caller = (principal: string, key?: string): Caller => ({
  principal,
  claims: {},
  headers: key ? { "x-test-key": key } : {},
});

beforeAll(async () => {
  upstream = await Upstream.start();
  catalog = await loadCatalog(fixture("../../examples/petstore.openapi.yaml"), { baseUrl: upstream.url });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.reset();
  forgotten.length = 0;
  upstream.on("GET", /^\/pets\/\d+$/, json({ id: 7, name: "Rex", kind: { species: "dog" } }));
});

function engine(): Engine {
  // The environment's key is set too: the per-user value wins over it.
  return new Engine({ catalog, env: { API_KEY_API_KEY: "server-wide-key" }, userCredentials: { api_key: fromHeader } });
}

describe("per-user credentials", () => {
  it("sends each caller's own value where the scheme says, never another's", async () => {
    const served = engine();
    await served.callTool("getPet", { petId: 7 }, { caller: caller("alice", "alice-key-1") });
    await served.callTool("getPet", { petId: 7 }, { caller: caller("bob", "bob-key-2") });
    expect(upstream.requests.map((r) => r.headers["x-api-key"])).toEqual(["alice-key-1", "bob-key-2"]);
  });

  it("masks the value in what the call returns", async () => {
    upstream.reset();
    upstream.on("GET", /^\/pets\/\d+$/, json({ id: 7, name: "alice-key-1", kind: { species: "dog" } }));
    const result = await engine().callTool("getPet", { petId: 7 }, { caller: caller("alice", "alice-key-1") });
    expect(JSON.stringify(result)).not.toContain("alice-key-1");
  });

  it.each([
    ["a caller without the value", caller("carol")],
    ["no caller at all", undefined],
  ])("answers %s with what to do, and sends nothing", async (_, who) => {
    const result = await engine().callTool("getPet", { petId: 7 }, who ? { caller: who } : {});
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      text: "getPet cannot be called: send your own key in the X-Test-Key header. Nothing was sent.",
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it("applies only the per-user schemes a profile lists; for the others its callers act with the server's value", async () => {
    const served = engine();
    const all = () => true;
    const service = served.withProfile({ name: "service", tools: all, userSchemes: [] });
    const people = served.withProfile({ name: "people", tools: all, userSchemes: ["api_key"] });
    await service.callTool("getPet", { petId: 7 }, { caller: caller("ci", "ci-key-ignored") });
    await people.callTool("getPet", { petId: 7 }, { caller: caller("alice", "alice-key-1") });
    expect(upstream.requests.map((r) => r.headers["x-api-key"])).toEqual(["server-wide-key", "alice-key-1"]);
  });

  it("refuses a profile listing a scheme that is not per user, naming the place", () => {
    const settings = {
      file: "s.yaml",
      profiles: { people: { match: { sub: "alice" }, credentials: ["nope"] } },
      defaultProfile: "people",
    };
    expect(() => profiledProvider({ engine: engine(), settings, build: (e) => e })).toThrow(
      "s.yaml#/profiles/people/credentials/0: 'nope' is not a per-user scheme (credentials.<scheme>.perUser): those are api_key",
    );
  });

  it("does not count a per-user scheme as missing at start", () => {
    expect(missingCredentials(catalog, {}, { userCredentials: { api_key: fromHeader } })).toEqual([]);
    expect(missingCredentials(catalog, {})).not.toEqual([]);
  });

  it("forgets a bearer value the API refuses", async () => {
    const spec = join(mkdtempSync(join(tmpdir(), "user-credentials-")), "bearer.json");
    writeFileSync(spec, JSON.stringify(BEARER_API));
    const bearer = await loadCatalog(spec, { baseUrl: upstream.url });
    upstream.reset();
    upstream.on("GET", "/me", status(401));
    const served = new Engine({ catalog: bearer, env: {}, userCredentials: { token: fromHeader } });
    const result = await served.callTool("getMe", {}, { caller: caller("alice", "alice-token") });
    expect(result.isError).toBe(true);
    expect(upstream.requests[0]?.headers.authorization).toBe("Bearer alice-token");
    expect(forgotten).toContain("alice-token");
  });
});
