// The forwarded per-user mode: each caller sends its own upstream credential in a request header the settings name
// (X-Upstream-Authorization, say), and it is placed as the scheme says. Never the caller's MCP access token: MCP
// forbids passing it through, so the Authorization header cannot be named and a forwarded value equal to that
// token is refused. The value is masked like any secret (credentials.ts adds it to the call's secrets).

import { UserError } from "../../catalog/errors.js";
import type { UserCredentials, UserValue } from "./user-credentials.js";

/** A header name as HTTP defines one (RFC 9110 §5.6.2 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers that carry something else: the MCP access token and cookies (the client's own session with this
 * server), the request's routing and framing, hop-by-hop headers no proxy passes on, and MCP's own.
 */
const REFUSED = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "content-type",
  "expect",
  "forwarded",
]);

/** The header name, lower-cased, or a UserError saying why it cannot be used; `place` names the setting. */
export function forwardedHeaderName({ header, place }: { header: unknown; place: string }): string {
  const refuse = (why: string): never => {
    throw new UserError({ code: "E_SETTINGS", message: `${place}: ${why}` });
  };
  if (typeof header !== "string" || !TOKEN.test(header))
    return refuse(`'${String(header)}' is not a header name (letters, digits and !#$%&'*+.^_\`|~- only)`);
  const name = header.toLowerCase();
  if (name === "authorization")
    refuse(
      "the Authorization header carries the caller's MCP access token, which must never be sent upstream (MCP forbids token passthrough); name a header of its own, such as X-Upstream-Authorization",
    );
  if (name.startsWith("mcp-")) refuse(`${header} is one of MCP's own headers; name a header of its own`);
  if (REFUSED.has(name))
    refuse(`${header} carries something else (the request itself, or the client's session); name a header of its own`);
  return name;
}

/** The forwarded mode for one scheme: `bearer` schemes accept the bare token or `Bearer <token>`. */
export function forwardedCredentials({
  header,
  display,
  scheme,
  bearer,
}: {
  /** Lower case, checked by forwardedHeaderName. */
  header: string;
  /** As the settings wrote it, for messages. */
  display: string;
  /** The scheme's name, for messages. */
  scheme: string;
  /** The value ends up after `Bearer ` (bearer and OAuth 2.0 schemes): a `Bearer ` prefix sent is dropped. */
  bearer: boolean;
}): UserCredentials {
  const description = `forwarded from each caller's ${display} header`;
  return {
    mode: "forwarded",
    description,
    async valueFor({ caller }): Promise<UserValue> {
      if (!caller)
        return {
          missing: `its credential (security scheme '${scheme}') is ${description}, and this call came with no verified caller: send the ${display} header with requests over HTTP to a server that checks callers (serve --transport http --auth static|oauth); stdio and an open endpoint have no caller to forward from.`,
        };
      const sent = caller.headers[header]?.trim() ?? "";
      const bare = sent.replace(/^bearer\s+/i, "").trim();
      const value = bearer ? bare : sent;
      if (value === "")
        return { missing: `send your own credential for security scheme '${scheme}' in the ${display} header.` };
      if (caller.accessToken !== undefined && (value === caller.accessToken || bare === caller.accessToken))
        return {
          missing: `the ${display} header holds your MCP access token, which is never sent upstream (MCP forbids token passthrough); send your credential for the upstream API (security scheme '${scheme}') there instead.`,
        };
      return { value };
    },
  };
}
