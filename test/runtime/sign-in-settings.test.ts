// The sign-in mode's settings: what is missing or wrong is refused at start by its place in the settings file
// (`…#/credentials/<scheme>/perUser/signIn`), before anyone is asked to sign in.

import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Settings, SignInSettings } from "../../src/catalog/settings.js";
import type { CredentialScheme } from "../../src/catalog/types.js";
import { MemoryTokenStore } from "../../src/runtime/sign-in/token-store.js";
import { userCredentialModes } from "../../src/runtime/credentials/user-credential-modes.js";

const FLOW = { authorizationUrl: "https://id.example.com/authorize", tokenUrl: "https://id.example.com/token" };
const SCHEMES: Record<string, CredentialScheme> = {
  withFlow: { name: "withFlow", type: "bearer", token: { env: "T" }, authorizationCode: FLOW },
  plain: { name: "plain", type: "bearer", token: { env: "T" } },
  key: { name: "key", type: "apiKey", in: "header", parameter: "x-key", value: { env: "K" } },
};
const ENV = { OPENAPI_MCP_TOKEN_KEY: randomBytes(32).toString("hex"), SECRET: "s3cret-value" };

function modes(scheme: string, signIn: Partial<SignInSettings>, env: Record<string, string> = ENV) {
  const settings: Settings = {
    file: "settings.yaml",
    credentials: { [scheme]: { perUser: { signIn: { clientId: "app", ...signIn } } } },
  };
  return userCredentialModes({ settings, catalog: { credentials: SCHEMES }, env, tokenStore: new MemoryTokenStore() });
}

describe("sign-in settings", () => {
  it("takes the URLs from the document's flow and adds the callback (its page and its confirmation) and sign-out routes", async () => {
    const built = await modes("withFlow", { publicUrl: "https://mcp.example.com/", clientSecret: "${SECRET}" });
    expect(built.userCredentials?.withFlow?.mode).toBe("signIn");
    expect(built.routes.map((r) => `${r.method} ${r.path} ${r.access}`)).toEqual([
      "GET /oauth/callback public",
      "POST /oauth/callback public",
      "POST /signout caller",
    ]);
  });

  it.each([
    [
      "a scheme without the flow and no URLs",
      "plain",
      { publicUrl: "https://mcp.example.com" },
      "settings.yaml#/credentials/plain/perUser/signIn: give authorizationUrl and tokenUrl: scheme 'plain' has no OAuth 2.0 authorizationCode flow in the document to take them from",
    ],
    [
      "no callback",
      "withFlow",
      {},
      "settings.yaml#/credentials/withFlow/perUser/signIn: give redirectUrl (this server's callback as registered at the provider) or publicUrl",
    ],
    [
      "a scheme that is not a token",
      "key",
      { publicUrl: "https://mcp.example.com" },
      "settings.yaml#/credentials/key/perUser/signIn: signing in gives a bearer token, and scheme 'key' is apiKey",
    ],
    [
      "an unknown scheme",
      "nope",
      {},
      "settings.yaml#/credentials/nope/perUser: no security scheme 'nope' (the source has: withFlow, plain, key)",
    ],
    [
      "an unset variable",
      "withFlow",
      { publicUrl: "https://mcp.example.com", clientSecret: "${UNSET_SECRET}" },
      "settings.yaml#/credentials/withFlow/perUser/signIn/clientSecret: environment variable UNSET_SECRET is not set",
    ],
  ])("refuses %s by its place", async (_, scheme, signIn, message) => {
    await expect(modes(scheme, signIn)).rejects.toThrow(message);
  });

  it("refuses a start without the key, naming the variable", async () => {
    await expect(modes("withFlow", { publicUrl: "https://mcp.example.com" }, {})).rejects.toThrow(
      "OPENAPI_MCP_TOKEN_KEY is not set: signing in (settings.yaml#/credentials/withFlow/perUser/signIn) keeps users' tokens encrypted with it",
    );
  });
});

describe("where sign-ins are kept with a shared state (--state redis)", () => {
  const settingsWith = (tokenStore?: { file: string }): Settings => ({
    file: "settings.yaml",
    ...(tokenStore ? { tokenStore } : {}),
    credentials: { withFlow: { perUser: { signIn: { clientId: "app", publicUrl: "https://mcp.example.com" } } } },
  });
  const shared = () => {
    const made: MemoryTokenStore[] = [];
    const tokenStore = () => {
      made.push(new MemoryTokenStore());
      return made.at(-1)!;
    };
    return { made, shared: { tokenStore } };
  };

  it("keeps them in the shared state", async () => {
    const { made, shared: given } = shared();
    const lines: string[] = [];
    await userCredentialModes({
      settings: settingsWith(),
      catalog: { credentials: SCHEMES },
      env: ENV,
      shared: given,
      log: (line) => lines.push(line),
    });
    expect(made).toHaveLength(1);
    expect(lines).toEqual([]);
  });

  it("keeps them in the token file the settings name, and says that sign-ins then stay on this replica", async () => {
    const { made, shared: given } = shared();
    const lines: string[] = [];
    const file = join(mkdtempSync(join(tmpdir(), "sign-in-settings-")), "tokens.json");
    await userCredentialModes({
      settings: settingsWith({ file }),
      catalog: { credentials: SCHEMES },
      env: ENV,
      shared: given,
      log: (line) => lines.push(line),
    });
    expect(made).toHaveLength(0);
    expect(lines).toEqual([
      `openapi-mcp: users' tokens are kept in ${file} (settings.yaml#/tokenStore/file), not in the shared state (--state): a user signed in through this replica is not signed in on the others. Remove tokenStore.file to share them`,
    ]);
  });
});
