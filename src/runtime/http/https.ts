// HTTPS enforcement before any call: every upstream URL a catalog can reach (the tools' server URLs and the
// token URLs of the OAuth 2.0 schemes they use) must be https, except to loopback hosts. With the opt-out
// (--allow-insecure-http) the same list is the warning to print on every start. Redirect hops are held to the
// request's own origin by the HTTP client, so they can neither change host nor downgrade to http.

import { plural } from "../../catalog/plural.js";
import type { Catalog } from "../../catalog/types.js";
import { isAllowedScheme } from "../../catalog/url.js";

export interface UpstreamUrlProblem {
  url: string;
  /** What uses it, for the message: `the server URL of 3 tools (listPets, getPet, addPet)` or `the server URL of tool listPets`. */
  usedBy: string;
  /** `http`: plain http to a non-loopback host (allowed only with the opt-out); `invalid`: never usable. */
  kind: "http" | "invalid";
}

const MAX_NAMED_TOOLS = 3;

/** Every upstream URL of the catalog that is not https (or http to a loopback host), once each, with its users. */
export function insecureUpstreamUrls(catalog: Pick<Catalog, "tools" | "credentials">): UpstreamUrlProblem[] {
  const servers = new Map<string, string[]>();
  const tokens = new Map<string, Set<string>>();
  for (const tool of catalog.tools) {
    const serverUrl = tool.operation.serverUrl;
    // "" means the source names no server: a base URL must be given, which is checked where it is given.
    // Appended in place: copying the list for every tool was quadratic (Microsoft Graph: 22,361 tools, one URL).
    if (serverUrl !== "") {
      const users = servers.get(serverUrl);
      if (users) users.push(tool.name);
      else servers.set(serverUrl, [tool.name]);
    }
    for (const alternative of tool.operation.security) {
      for (const { id } of alternative.schemes) {
        const scheme = Object.hasOwn(catalog.credentials, id) ? catalog.credentials[id] : undefined;
        if (scheme?.type !== "oauth2") continue;
        const users = tokens.get(scheme.tokenUrl) ?? new Set<string>();
        users.add(scheme.name);
        tokens.set(scheme.tokenUrl, users);
      }
    }
  }
  const problems: UpstreamUrlProblem[] = [];
  for (const [url, tools] of servers) {
    const kind = problemOf(url);
    if (kind) problems.push({ url, kind, usedBy: `the server URL of ${toolList(tools)}` });
  }
  for (const [url, schemes] of tokens) {
    const kind = problemOf(url);
    const names = [...schemes].map((name) => `'${name}'`).join(", ");
    if (kind)
      problems.push({
        url,
        kind,
        usedBy: `the OAuth 2.0 token URL of security scheme${plural(schemes.size)} ${names}`,
      });
  }
  return problems;
}

/**
 * What to do about the catalog's upstream URLs before starting: `errors` stop the server (each names the URL and
 * what uses it); `warnings` are the plain-http URLs `allowInsecureHttp` lets through, to print on every start.
 */
export function checkUpstreamUrls(
  catalog: Pick<Catalog, "tools" | "credentials">,
  { allowInsecureHttp = false }: { allowInsecureHttp?: boolean } = {},
): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const { url, usedBy, kind } of insecureUpstreamUrls(catalog)) {
    if (kind === "invalid") errors.push(`${url} (${usedBy}) is not an absolute http(s) URL`);
    else if (allowInsecureHttp) {
      warnings.push(
        `${url} (${usedBy}) is plain http to a host that is not loopback, allowed by --allow-insecure-http: credentials and data cross the network unencrypted and can be read or changed on the way`,
      );
    } else {
      // For a server URL, the likely fix is the same API over https; a token URL is the scheme's to change.
      const fix = usedBy.startsWith("the server URL")
        ? `if the API answers over https, pass --base-url ${url.replace(/^http:/i, "https:")}`
        : "use an https:// URL";
      errors.push(
        `${url} (${usedBy}) is plain http to a host that is not loopback: credentials and data would cross the network unencrypted; ${fix}, or pass --allow-insecure-http to accept the risk`,
      );
    }
  }
  return { errors, warnings };
}

function problemOf(text: string): UpstreamUrlProblem["kind"] | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "invalid";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "invalid";
  return isAllowedScheme(url, false) ? undefined : "http";
}

function toolList(tools: string[]): string {
  if (tools.length === 1) return `tool ${tools[0]}`;
  const named = tools.length > MAX_NAMED_TOOLS ? `${tools.slice(0, MAX_NAMED_TOOLS).join(", ")}, …` : tools.join(", ");
  return `${tools.length} tools (${named})`;
}
