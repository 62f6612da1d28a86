// What the fuzzer asserts about each call: an independent validator (its own Ajv2020, compiled on the
// self-contained schema tools/list shows) for "only schema-valid arguments reach the upstream", and the shape of
// every request that went out: to the upstream's origin and host, under its base path, the path template's
// segments intact, no query parameter or cookie the operation does not declare, no CR/LF in any header.

import type { ValidateFunction } from "ajv/dist/2020.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Tool } from "../../src/catalog/types.js";
import type { Dispatched, Received, Upstream } from "./upstream.js";

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** Each tool's self-contained input schema compiled on a fresh Ajv2020 of our own, not the engine's Validator. */
export class IndependentValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor() {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat("int32", {
      type: "number",
      validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1,
    });
    this.ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
  }

  /** "" when valid, else Ajv's error text. */
  check(key: string, schema: object, value: unknown): string {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(key, validate);
    }
    if (validate(value)) return "";
    return this.ajv.errorsText(validate.errors, { separator: "; " });
  }
}

const EXPECTED_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "content-type",
  "transfer-encoding",
  "accept",
  "cookie",
  // The engine's own (http.ts), unless the API declares the header itself.
  "user-agent",
]);

/** The problems with one request as the upstream received it, given the tool it was made for. */
export function checkReceived({
  received,
  tool,
  upstream,
}: {
  received: Received;
  tool: Tool;
  upstream: Upstream;
}): string[] {
  const problems: string[] = [];
  const { operation } = tool;
  const url = received.url;
  if (received.method !== operation.method) problems.push(`method ${received.method}, expected ${operation.method}`);
  if (received.headers.host !== upstream.host) problems.push(`Host ${JSON.stringify(received.headers.host)}`);
  if (!url.startsWith(`${upstream.basePath}/`))
    problems.push(`target does not start with the base path: ${excerpt(url)}`);
  if (url.includes("#")) problems.push(`target holds a fragment: ${excerpt(url)}`);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url, upstream.origin);
  } catch {
    problems.push(`target is not a URL: ${excerpt(url)}`);
  }
  if (parsed) {
    if (parsed.host !== upstream.host) problems.push(`target names another host: ${excerpt(url)}`);
    // WHATWG URL resolves `.`, `..` and their %2e spellings as a server or proxy would.
    if (!parsed.pathname.startsWith(`${upstream.basePath}/`)) {
      problems.push(`normalized path leaves the base path: ${excerpt(parsed.pathname)}`);
    }
  }
  problems.push(...checkPathShape({ url, tool, basePath: upstream.basePath }));
  problems.push(...checkQuery({ url, tool }));
  problems.push(...checkHeaders({ received, tool }));
  return problems;
}

/** The template's segments, each filled or literal, and no dot or empty segment where a value went. */
function checkPathShape({ url, tool, basePath }: { url: string; tool: Tool; basePath: string }): string[] {
  const rawPath = url.split("?", 1)[0]!.slice(basePath.length);
  const template = tool.operation.path.startsWith("/") ? tool.operation.path : `/${tool.operation.path}`;
  const want = template.split("/");
  const got = rawPath.split("/");
  if (want.length !== got.length) {
    return [`path has ${got.length} segments, the template ${want.length}: ${excerpt(rawPath)} for ${template}`];
  }
  const problems: string[] = [];
  want.forEach((segment, i) => {
    const sent = got[i]!;
    if (!segment.includes("{")) {
      if (decoded(sent) !== decoded(segment)) problems.push(`literal segment ${segment} sent as ${excerpt(sent)}`);
      return;
    }
    const value = decoded(sent);
    if (sent === "" || value === "." || value === "..")
      problems.push(`filled segment ${segment} is ${JSON.stringify(sent)}`);
    // Whatever filled the placeholders, the literal text around them is there unchanged (percent-encoded or not).
    const literals = segment.split(/\{[^{}]+\}/).filter(Boolean);
    let at = 0;
    for (const literal of literals) {
      const found = value.indexOf(decoded(literal), at);
      if (found < 0) {
        problems.push(`segment ${segment} lost its literal ${literal}: ${excerpt(sent)}`);
        break;
      }
      at = found + decoded(literal).length;
    }
  });
  return problems;
}

/** Query keys must be declared parameters, unless an exploded form object spreads its own keys there. */
function checkQuery({ url, tool }: { url: string; tool: Tool }): string[] {
  const at = url.indexOf("?");
  if (at < 0) return [];
  const bindings = tool.operation.parameters.query;
  const spreadsKeys = bindings.some(
    (b) => b.shape !== "primitive" && b.style === "form" && b.explode && b.contentType === undefined,
  );
  if (spreadsKeys) return [];
  const names = new Set(bindings.map((b) => b.name));
  const deep = bindings.filter((b) => b.style === "deepObject").map((b) => `${b.name}[`);
  const problems: string[] = [];
  for (const pair of url.slice(at + 1).split("&")) {
    const key = decoded(pair.split("=", 1)[0]!);
    if (names.has(key) || deep.some((prefix) => key.startsWith(prefix))) continue;
    problems.push(`query key ${JSON.stringify(excerpt(key))} is no parameter of the operation`);
  }
  return problems;
}

function checkHeaders({ received, tool }: { received: Received; tool: Tool }): string[] {
  const problems: string[] = [];
  const declared = new Set(tool.operation.parameters.header.map((b) => b.name.toLowerCase()));
  const raw = received.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) problems.push(`header ${JSON.stringify(name)} holds CR or LF`);
    const lower = name.toLowerCase();
    if (!EXPECTED_HEADERS.has(lower) && !declared.has(lower))
      problems.push(`unexpected header ${JSON.stringify(name)}`);
  }
  const cookie = received.headers.cookie;
  const cookies = tool.operation.parameters.cookie;
  const spreads = cookies.some((b) => b.shape === "object" && b.explode && b.contentType === undefined);
  if (cookie !== undefined && !spreads) {
    const names = new Set(cookies.map((b) => b.name));
    for (const pair of cookie.split("; ")) {
      const name = decoded(pair.split("=", 1)[0]!);
      if (!names.has(name)) problems.push(`cookie ${JSON.stringify(excerpt(name))} is no parameter of the operation`);
    }
  }
  return problems;
}

/** Problems with what the engine handed to undici: the origin, and CR/LF in header values. */
export function checkDispatched({ dispatched, upstream }: { dispatched: Dispatched; upstream: Upstream }): string[] {
  const problems: string[] = [];
  if (dispatched.origin !== upstream.origin) problems.push(`dispatched to origin ${dispatched.origin}`);
  if (!dispatched.path.startsWith(`${upstream.basePath}/`))
    problems.push(`dispatched path ${excerpt(dispatched.path)}`);
  for (const [name, value] of dispatched.headers) {
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) {
      problems.push(`header ${JSON.stringify(name)} handed to undici with CR or LF: ${JSON.stringify(excerpt(value))}`);
    }
  }
  return problems;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function excerpt(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** JSON for a message, bounded, and never throwing (arguments may be 12,000 levels deep). */
export function describeValue(value: unknown, max = 300): string {
  try {
    const text = JSON.stringify(value, (_key, v: unknown) =>
      typeof v === "string" && v.length > 80 ? `${v.slice(0, 80)}…` : v,
    );
    return excerpt(text ?? String(value), max);
  } catch {
    return "(too deep to print)";
  }
}
