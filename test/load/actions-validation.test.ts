// Action definitions: every auth kind with the variables it names, and definitions that are refused (literal
// secrets, unknown fields, duplicate names, unset ${VAR}s) with messages naming line:column and JSON pointer.

import { describe, expect, it } from "vitest";
import type { CredentialScheme } from "../../src/catalog/types.js";
import { escapeRegExp, fixture, loadFixture, rejection, toolNamed } from "../support/fixtures.js";

describe("auth kinds", () => {
  it.each<{ file: string; id: string; want: CredentialScheme }>([
    {
      file: "auth-apikey-header",
      id: "keyed-header",
      want: {
        name: "keyed-header",
        type: "apiKey",
        in: "header",
        parameter: "X-Key-header",
        value: { env: "KEYED_HEADER_KEY" },
      },
    },
    {
      file: "auth-apikey-query",
      id: "keyed-query",
      want: {
        name: "keyed-query",
        type: "apiKey",
        in: "query",
        parameter: "X-Key-query",
        value: { env: "KEYED_QUERY_KEY" },
      },
    },
    {
      file: "auth-apikey-cookie",
      id: "keyed-cookie",
      want: {
        name: "keyed-cookie",
        type: "apiKey",
        in: "cookie",
        parameter: "X-Key-cookie",
        value: { env: "KEYED_COOKIE_KEY" },
      },
    },
    { file: "auth-bearer", id: "tokened", want: { name: "tokened", type: "bearer", token: { env: "TOKENED_TOKEN" } } },
    {
      file: "auth-basic",
      id: "based",
      // A user name is not a secret: it may be written as it is.
      want: {
        name: "based",
        type: "basic",
        username: { value: "service-account" },
        password: { env: "BASED_PASSWORD" },
      },
    },
    {
      file: "auth-oauth2",
      id: "oauthed",
      want: {
        name: "oauthed",
        type: "oauth2",
        tokenUrl: "https://login.oauthed.example.com/oauth2/token",
        scopes: ["read", "write"],
        clientId: { env: "OAUTHED_CLIENT_ID" },
        clientSecret: { env: "OAUTHED_CLIENT_SECRET" },
      },
    },
  ])("$file: a $want.type credential reading the ${VAR}s it names", async ({ file, id, want }) => {
    const catalog = await loadFixture(`actions/${file}.actions.yaml`);
    expect(catalog.credentials).toEqual({ [id]: want });
    const scopes = want.type === "oauth2" ? want.scopes : [];
    expect(toolNamed(catalog, "ping").operation.security).toEqual([{ schemes: [{ id, scopes }] }]);
    expect(JSON.stringify(toolNamed(catalog, "ping").inputSchema)).not.toMatch(/key|token|password|secret/i);
  });

  it("type: none needs no credentials", async () => {
    const catalog = await loadFixture("actions/auth-none.actions.yaml");
    expect(catalog.credentials).toEqual({});
    expect(toolNamed(catalog, "ping").operation.security).toEqual([]);
  });
});

describe("definitions that are refused", () => {
  it("refuses a literal API key, naming line:column and pointer without echoing the secret", async () => {
    const file = fixture("actions/literal-secret.actions.yaml");
    const error = await rejection(loadFixture("actions/literal-secret.actions.yaml"));
    expect(error.code).toBe("E_INVALID_DEFINITION");
    expect(error.message).toContain(
      `${file}:7:10 #/auth/value: must be a \${VAR} reference to an environment variable`,
    );
    expect(error.message).not.toContain("sk-live");
    expect(error.message).not.toContain("LEAKED0SECRET");
  });

  it("refuses a literal credential header, without echoing it", async () => {
    const file = fixture("actions/literal-header.actions.yaml");
    const error = await rejection(loadFixture("actions/literal-header.actions.yaml"));
    expect(error.code).toBe("E_INVALID_DEFINITION");
    expect(error.message).toContain(
      `${file}:5:18 #/headers/Authorization: a credential header must not hold a literal value`,
    );
    expect(error.message).not.toContain("eyJLEAKEDHEADERTOKEN");
  });

  it("lists every unknown field and missing field at once, each with its line", async () => {
    const file = fixture("actions/unknown-field.actions.yaml");
    const error = await rejection(loadFixture("actions/unknown-field.actions.yaml"));
    expect(error.code).toBe("E_INVALID_DEFINITION");
    expect(error.message).toMatch(new RegExp(`${escapeRegExp(file)}:3:\\d+ #/timeout: unknown field 'timeout'`));
    expect(error.message).toMatch(new RegExp(`${escapeRegExp(file)}:7:\\d+ #/actions/0/verb: unknown field 'verb'`));
    expect(error.message).toContain("#/actions/0: missing required field 'method'");
  });

  it("refuses duplicate action names, pointing at the second and naming the first", async () => {
    const file = fixture("actions/duplicate.actions.yaml");
    const error = await rejection(loadFixture("actions/duplicate.actions.yaml"));
    expect(error.code).toBe("E_INVALID_DEFINITION");
    expect(error.message).toMatch(
      new RegExp(`${escapeRegExp(file)}:6:\\d+ #/actions/2/name: action name 'ping' is already used by #/actions/0`),
    );
    expect(error.message).not.toContain("#/actions/1/name");
  });

  it("expands ${VAR} in baseUrl, and names the variable and place when it is unset", async () => {
    const catalog = await loadFixture("actions/env-base-url.actions.yaml", {
      env: { ENVY_BASE_URL: "https://envy.example.com" },
    });
    expect(toolNamed(catalog, "ping").operation.serverUrl).toBe("https://envy.example.com/v1");

    const file = fixture("actions/env-base-url.actions.yaml");
    const error = await rejection(loadFixture("actions/env-base-url.actions.yaml", { env: {} }));
    expect(error.code).toBe("E_ENV");
    expect(error.message).toBe(`${file}#/baseUrl: environment variable ENVY_BASE_URL is not set`);
  });
});

describe("every error of a definition in one round", () => {
  it("reports schema errors (unknown types included) and rule errors together, each with line and column", async () => {
    const file = fixture("actions/many-errors.actions.yaml");
    const error = await rejection(loadFixture("actions/many-errors.actions.yaml"));
    expect(error.code).toBe("E_INVALID_DEFINITION");
    const lines = error.message
      .split("\n")
      .slice(1)
      .map((line) => line.trim());
    expect(lines).toEqual([
      `${file}:5:51 #/schemas/Item/properties/id/type: must be one of: "array", "boolean", "integer", "null", "number", "object", "string"`,
      `${file}:14:24 #/actions/0/inputSchema/properties/count/type: must be one of: "array", "boolean", "integer", "null", "number", "object", "string"`,
      `${file}:17:13 #/actions/1/method: must be one of: "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"`,
      `${file}:10:11 #/actions/0/path: path placeholder {itemId} has no property in inputSchema`,
      `${file}:25:17 #/actions/2/in/size: 'Content-Length' is set by HTTP or by openapi-mcp; an argument cannot be sent as that header`,
      `${file}:19:27 #/actions/1/outputSchema/$ref: $ref '#/schemas/Missing' does not resolve: nothing is at that place in the definition`,
    ]);
  });
});
