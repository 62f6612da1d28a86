// The OAuth protected resource's config resolved on its own: the defaults an operator relies on, the RFC 9728
// metadata and where it is served, and no I/O (an issuer nobody can reach resolves all the same).

import { describe, expect, it } from "vitest";
import { ASYMMETRIC_ALGORITHMS, resolveResourceConfig } from "../../src/server/resource-config.js";

const config = {
  type: "oauth" as const,
  resource: "https://gw.example.com/teams/a/mcp",
  authorizationServers: ["https://unreachable.invalid/tenant"],
};

describe("resolveResourceConfig", () => {
  it("applies the documented defaults", () => {
    const settings = resolveResourceConfig({ config, endpointPath: "/mcp" });
    expect(settings).toMatchObject({
      issuers: ["https://unreachable.invalid/tenant"],
      audience: ["https://gw.example.com/teams/a/mcp"],
      requiredScopes: [],
      algorithms: ASYMMETRIC_ALGORITHMS,
      clockTolerance: 30,
      principalClaim: "sub",
      allowInsecureHttp: false,
    });
    expect(settings.jwksUrl).toBeUndefined();
    expect(ASYMMETRIC_ALGORITHMS).toEqual(expect.arrayContaining(["RS256", "PS256", "ES256", "EdDSA"]));
    expect(ASYMMETRIC_ALGORITHMS.some((alg) => alg.startsWith("HS") || alg === "none")).toBe(false);
  });

  it("serves the metadata at the resource's own path, the bare well-known path and the local endpoint's", () => {
    const settings = resolveResourceConfig({
      config: { ...config, requiredScopes: ["mcp:tools"], resourceName: "Team A" },
      endpointPath: "/mcp",
    });
    expect(settings.metadataUrl).toBe("https://gw.example.com/.well-known/oauth-protected-resource/teams/a/mcp");
    expect([...settings.metadataPaths]).toEqual([
      "/.well-known/oauth-protected-resource/teams/a/mcp",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]);
    expect(JSON.parse(settings.metadata)).toEqual({
      resource: "https://gw.example.com/teams/a/mcp",
      authorization_servers: ["https://unreachable.invalid/tenant"],
      bearer_methods_supported: ["header"],
      scopes_supported: ["mcp:tools"],
      resource_name: "Team A",
    });
  });

  it("takes what the operator sets over the defaults", () => {
    const settings = resolveResourceConfig({
      config: {
        ...config,
        audience: "api://mcp",
        algorithms: ["RS256"],
        clockToleranceSeconds: 0,
        principalClaim: "client_id",
        jwksUrl: "https://unreachable.invalid/keys",
      },
      endpointPath: "/mcp",
    });
    expect(settings).toMatchObject({ audience: ["api://mcp"], algorithms: ["RS256"], clockTolerance: 0 });
    expect(settings.principalClaim).toBe("client_id");
    expect(settings.jwksUrl?.href).toBe("https://unreachable.invalid/keys");
  });

  it("names the setting a refused config got wrong", () => {
    expect(() => resolveResourceConfig({ config: { ...config, audience: [] }, endpointPath: "/mcp" })).toThrow(
      "Endpoint auth: audience must name at least one value",
    );
    expect(() => resolveResourceConfig({ config: { ...config, jwksUrl: "not a url" }, endpointPath: "/mcp" })).toThrow(
      "Endpoint auth: jwksUrl is not a URL: not a url",
    );
  });
});
