// Which server of a `servers` list a tool calls, with its variables filled in. The first https server wins over an
// earlier plain-http one (many documents list `http://` first, or `http://localhost` for development, and also
// offer https); without one, the first server. Variables take the value the user set (`--server-var`, settings,
// a manifest source), else the document's default, else the first of its `enum`.

import { isObject } from "../../catalog/pointer.js";
import type { FilelessDiagnostic } from "../../catalog/types.js";
import type { Normalizer } from "./normalizer.js";
import { trimTrailingSlash } from "./normalizer.js";

interface Candidate {
  url: string;
  diagnostics: FilelessDiagnostic[];
  used: string[];
}

/** The chosen server's URL; undefined when none is listed here (the level above then applies). */
export function serverUrl({
  n,
  servers,
  pointer,
}: {
  n: Normalizer;
  servers: unknown;
  pointer: string;
}): string | undefined {
  if (!Array.isArray(servers) || servers.length === 0) return undefined;
  const candidates: Candidate[] = [];
  servers.forEach((server, i) => {
    if (isObject(server) && typeof server.url === "string")
      candidates.push(substitute({ n, server, url: server.url, pointer: `${pointer}/${i}` }));
  });
  const chosen = candidates.find((c) => c.url.startsWith("https://")) ?? candidates[0];
  if (!chosen) {
    n.warn({ code: "invalid-server", pointer: `${pointer}/0`, message: "a server needs a url; ignored" });
    return undefined;
  }
  // Only the chosen server's problems matter: the others are never called.
  for (const d of chosen.diagnostics) n.diagnostics.push({ ...d, file: n.file });
  for (const name of chosen.used) n.serverVariables?.used.add(name);
  return chosen.url;
}

function substitute({
  n,
  server,
  url,
  pointer,
}: {
  n: Normalizer;
  server: Record<string, unknown>;
  url: string;
  pointer: string;
}): Candidate {
  const variables = isObject(server.variables) ? server.variables : {};
  const candidate: Candidate = { url: "", diagnostics: [], used: Object.keys(variables) };
  const filled = url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = Object.hasOwn(variables, name) && isObject(variables[name]) ? variables[name] : {};
    const allowed = Array.isArray(variable.enum) ? variable.enum.map(String) : undefined;
    const given = n.serverVariables?.values.get(name);
    candidate.used.push(name);
    if (given !== undefined) {
      if (allowed && !allowed.includes(given.value)) {
        const message = `${given.place}: ${JSON.stringify(given.value)} is not a value server variable {${name}} allows (${allowed.map((v) => JSON.stringify(v)).join(", ")})`;
        candidate.diagnostics.push({
          severity: "error",
          code: "server-variable",
          pointer: `${pointer}/variables/${name}`,
          message,
        });
      }
      return given.value;
    }
    const value = variable.default ?? allowed?.[0];
    if (value === undefined) {
      const message = `server variable {${name}} has no default; the URL is used as written (set one with --server-var ${name}=…)`;
      candidate.diagnostics.push({ severity: "warning", code: "server-variable", pointer: `${pointer}/url`, message });
      return whole;
    }
    return String(value);
  });
  candidate.url = trimTrailingSlash(n.absoluteUrl(filled));
  return candidate;
}
