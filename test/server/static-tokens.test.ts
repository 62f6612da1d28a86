// Static tokens may be named in their variable (`name=token`), so profiles can match on the name; unnamed entries
// and tokens ending in `=` (base64) keep working as before.

import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { StaticTokens } from "../../src/server/static-tokens.js";

const tokens = (value: string) =>
  new StaticTokens({ config: { type: "static", tokenEnv: "T" }, env: { T: value }, log: () => {} });
const request = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as IncomingMessage;

describe("static tokens with names", () => {
  it("a named token is the caller static:<name>, its name the token claim; unnamed ones are #<n>", async () => {
    const mode = tokens("reader=reader-token-0123456789abcdef, plain-token-0123456789abcdef, b64tokenABCDEFGHIJ==");
    expect(await mode.verify(request("reader-token-0123456789abcdef"))).toMatchObject({
      key: "static:reader",
      claims: { token: "reader" },
    });
    expect(await mode.verify(request("plain-token-0123456789abcdef"))).toMatchObject({
      key: "static:1",
      claims: { token: "#2" },
    });
    expect(await mode.verify(request("b64tokenABCDEFGHIJ=="))).toMatchObject({ claims: { token: "#3" } });
    await expect(mode.verify(request("reader=reader-token-0123456789abcdef"))).rejects.toThrow();
  });

  it.each([
    [
      "two tokens of one name",
      "a=token-one-0123456789abcdef,a=token-two-0123456789abcdef",
      "two tokens in T are named 'a'",
    ],
    ["a name that is not one", "1st=token-one-0123456789abcdef", "the name of token #1 in T must start with a letter"],
  ])("%s is refused at start", (_, value, message) => {
    expect(() => tokens(value)).toThrow(message);
  });
});
