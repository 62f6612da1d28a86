// Which profile a verified caller gets from its claims (a static token's name, a JWT's sub, client_id, azp, a groups
// or roles claim, nested claims), and the mistakes in a settings file's profiles, each named at its place.

import { describe, expect, it } from "vitest";
import type { Settings } from "../../src/catalog/settings.js";
import { loadCatalog } from "../../src/load/index.js";
import { profiledProvider } from "../../src/runtime/profiles/profiled.js";
import { ProfileRefused, profileOf, profileTable } from "../../src/runtime/profiles/profiles.js";
import { startEngine } from "../../src/runtime/start.js";
import type { Caller } from "../../src/runtime/types.js";
import { example } from "../support/fixtures.js";

const SETTINGS: Settings = {
  file: "settings.yaml",
  profiles: {
    ops: { match: { "realm_access.roles": "ops" } },
    admins: { match: { groups: ["admin", "owner"] } },
    agent: { match: { client_id: "agent-7", azp: "agent-7" } },
    alice: { match: { sub: "alice" } },
    reader: { match: { token: "reader" } },
    fallback: {},
  },
};

const caller = (claims: Record<string, unknown>): Caller => ({ principal: "p", claims, headers: {} });

describe("a caller's profile", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["a static token's name", { token: "reader" }, "reader"],
    ["sub", { sub: "alice" }, "alice"],
    ["client_id and azp together", { sub: "x", client_id: "agent-7", azp: "agent-7" }, "agent"],
    ["membership in a groups claim", { sub: "bob", groups: ["staff", "owner"] }, "admins"],
    ["a nested roles claim", { sub: "eve", realm_access: { roles: ["ops"] } }, "ops"],
    ["the first profile that matches, in order", { sub: "alice", groups: ["admin"] }, "admins"],
  ])("%s", (_, claims, profile) => {
    expect(profileOf({ table: profileTable(SETTINGS)!, caller: caller(claims) })).toBe(profile);
  });

  it.each<[string, Record<string, unknown>]>([
    ["only one of two claims", { client_id: "agent-7" }],
    ["a value of another type", { sub: 7, groups: "admin-ish" }],
    ["an unnamed static token", { token: "#2" }],
    ["a group named like one but not in the list", { groups: ["administrators"] }],
  ])("no match (%s): refused without a default, the default with one", (_, claims) => {
    const table = profileTable(SETTINGS)!;
    expect(() => profileOf({ table, caller: caller(claims) })).toThrow(ProfileRefused);
    expect(() => profileOf({ table, caller: undefined })).toThrow("no default profile");
    const withDefault = profileTable({ ...SETTINGS, defaultProfile: "fallback" })!;
    expect(profileOf({ table: withDefault, caller: caller(claims) })).toBe("fallback");
    expect(profileOf({ table: withDefault, caller: undefined })).toBe("fallback");
  });
});

describe("mistakes in profiles", () => {
  const engine = async () => {
    const catalog = await loadCatalog(example("petstore.openapi.yaml"));
    return startEngine({ catalog, env: {}, log: () => {} });
  };
  const build = async (settings: Partial<Settings>) =>
    profiledProvider({ engine: await engine(), settings: { file: "s.yaml", ...settings }, build: (e) => e });

  it.each<[string, Partial<Settings>, string]>([
    [
      "a default that is no profile",
      { profiles: { a: {} }, defaultProfile: "b" },
      "s.yaml#/defaultProfile: no profile 'b'",
    ],
    ["a default without profiles", { defaultProfile: "b" }, "s.yaml#/defaultProfile: there are no profiles"],
    [
      "a filter that is none",
      { profiles: { a: { include: ["label:x"] } } },
      "s.yaml#/profiles/a: 'label:x' is not a filter",
    ],
    [
      "a policy for an unknown tool",
      { profiles: { a: { policy: { getPett: "deny" } } } },
      "s.yaml#/profiles/a/policy:",
    ],
  ])("%s", async (_, settings, message) => {
    await expect(build(settings)).rejects.toThrow(message);
  });

  it("without profiles, there is no profiled provider", async () => {
    expect(await build({})).toBeUndefined();
  });
});
