// Host and Origin rules as tables: given a binding and a header, refused or not.

import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "../../src/catalog/url.js";
import { parseHostHeader, RequestGuard } from "../../src/server/guard.js";

describe("isLoopbackHost", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.1", false],
    ["localhost.example.com", false],
  ])("%s → %s", (host, want) => {
    expect(isLoopbackHost(host)).toBe(want);
  });
});

describe("parseHostHeader", () => {
  it.each([
    ["127.0.0.1:3000", { name: "127.0.0.1", port: 3000 }],
    ["LocalHost:8080", { name: "localhost", port: 8080 }],
    ["[::1]:3000", { name: "[::1]", port: 3000 }],
    ["example.com", { name: "example.com", port: 80 }],
    ["user@127.0.0.1:3000", undefined],
    ["127.0.0.1:3000/path", undefined],
    ["127.0.0.1:99999", undefined],
    ["", undefined],
  ])("%j → %j", (header, want) => {
    expect(parseHostHeader(header)).toEqual(want);
  });
});

describe("RequestGuard.checkHost", () => {
  const loopback = new RequestGuard({ host: "127.0.0.1", port: 3000 });
  const extended = new RequestGuard({
    host: "127.0.0.1",
    port: 3000,
    allowedHosts: ["mcp.example.com", "proxy.local:8443"],
  });
  const wildcard = new RequestGuard({ host: "0.0.0.0", port: 3000 });
  const named = new RequestGuard({ host: "0.0.0.0", port: 3000, allowedHosts: ["mcp.example.com"] });

  it.each([
    [loopback, "127.0.0.1:3000", true],
    [loopback, "localhost:3000", true],
    [loopback, "[::1]:3000", true],
    [loopback, "127.0.0.1:3001", false],
    [loopback, "localhost", false],
    [loopback, "attacker.example:3000", false],
    [loopback, undefined, false],
    [extended, "mcp.example.com", true],
    [extended, "mcp.example.com:9999", true],
    [extended, "proxy.local:8443", true],
    [extended, "proxy.local:8444", false],
    [wildcard, "anything.example", true],
    [named, "mcp.example.com", true],
    [named, "0.0.0.0:3000", true],
    [named, "attacker.example", false],
  ])("%#: Host %s accepted: %s", (guard, header, accepted) => {
    expect(guard.checkHost(header) === undefined).toBe(accepted);
  });

  it("accepts the address it is bound to", () => {
    expect(new RequestGuard({ host: "127.0.0.2", port: 80 }).checkHost("127.0.0.2")).toBeUndefined();
    expect(new RequestGuard({ host: "::1", port: 4000 }).checkHost("[::1]:4000")).toBeUndefined();
  });

  it("rejects a malformed allowedHosts entry when configured", () => {
    expect(() => new RequestGuard({ host: "127.0.0.1", port: 1, allowedHosts: ["http://x/"] })).toThrow(/host/);
  });
});

describe("RequestGuard.checkOrigin", () => {
  const guard = new RequestGuard({ host: "127.0.0.1", port: 3000, allowedOrigins: ["https://app.example.com/"] });

  it.each([
    [undefined, true],
    ["http://localhost:5173", true],
    ["https://127.0.0.1", true],
    ["http://[::1]:8080", true],
    ["https://app.example.com", true],
    ["http://app.example.com", false],
    ["https://evil.example", false],
    ["http://localhost.evil.example", false],
    ["null", false],
    ["file://", false],
  ])("Origin %s accepted: %s", (header, accepted) => {
    expect(guard.checkOrigin(header) === undefined).toBe(accepted);
  });
});
