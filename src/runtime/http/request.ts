// A tool call's arguments become one HTTP request, without sending it. The origin comes only from the base URL
// and the path's shape only from the template: arguments fill placeholders, percent-encoded, and nothing else.

import { OpenApiMcpError } from "../../catalog/errors.js";
import { TRANSPORT_HEADERS } from "../../catalog/http-headers.js";
import { isObject, joinPointer } from "../../catalog/pointer.js";
import type { Operation, ParameterLocation } from "../../catalog/types.js";
import { buildBody } from "./body.js";
import { percentEncode, serializeParameter } from "./serialize.js";
import { ArgumentError, type PreparedRequest } from "../types.js";

export function buildRequest({
  operation,
  args,
  boundary,
}: {
  operation: Operation;
  args: Record<string, unknown>;
  /** A fixed multipart boundary, for tests. */
  boundary?: string;
}): PreparedRequest {
  // `--base-url` is already in the catalog's server URLs: the loader put it there.
  const base = baseOf(operation.serverUrl);
  const path = base.path + expandPath({ operation, args });
  const query = [base.query, ...serialized({ operation, args, location: "query" }).map(([, text]) => text)].filter(
    Boolean,
  );

  const headers: Record<string, string> = {};
  if (operation.accept.length > 0) headers.accept = operation.accept.join(", ");
  // Framing and routing headers (Host, Content-Length…) are never taken from a catalog, whatever it says: the
  // loader already leaves them out, and a catalog is data that could have been written by hand.
  for (const [name, text] of serialized({ operation, args, location: "header" })) {
    if (!TRANSPORT_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = text;
  }
  // Static headers are configuration: a tool argument never overrides one. `${VAR}`s are the caller's to expand.
  for (const [name, text] of Object.entries(operation.headers ?? {})) {
    if (!TRANSPORT_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = text;
  }
  const cookies = serialized({ operation, args, location: "cookie" }).map(([, text]) => text);
  if (cookies.length > 0) headers.cookie = [headers.cookie, ...cookies].filter(Boolean).join("; ");

  const request: PreparedRequest = {
    method: operation.method,
    origin: base.origin,
    path: query.length > 0 ? `${path}?${query.join("&")}` : path,
    headers,
  };
  const body =
    operation.body && buildBody({ binding: operation.body, args, ...(boundary === undefined ? {} : { boundary }) });
  if (body) {
    headers["content-type"] = body.contentType;
    request.body = body.bytes;
  }
  return request;
}

/** An argument's value: own properties only, so a parameter named `constructor` is not Object's. */
function argument({ args, name }: { args: Record<string, unknown>; name: string }): unknown {
  return Object.hasOwn(args, name) ? args[name] : undefined;
}

/** [wire name, serialized text] of each parameter given, in declaration order. */
function serialized({
  operation,
  args,
  location,
}: {
  operation: Operation;
  args: Record<string, unknown>;
  location: Exclude<ParameterLocation, "path">;
}): Array<[string, string]> {
  const result: Array<[string, string]> = [];
  for (const binding of operation.parameters[location]) {
    const value = argument({ args, name: binding.argument });
    // A line break would end the header and start another one (or a second request): refused, not escaped. A
    // header value holds only tab and visible ASCII (RFC 9110); anything else is refused too, since it would be
    // sent as other bytes than meant, or not at all. Cookie values are percent-encoded, so only breaks matter.
    if (location === "header" && notFieldValue(value)) {
      throw new ArgumentError({
        message: `header parameter '${binding.name}' may hold only visible ASCII characters and tabs (no line breaks, control characters or non-ASCII text)`,
        pointer: joinPointer("", binding.argument),
      });
    }
    if (location === "cookie" && hasControl(value)) {
      throw new ArgumentError({
        message: `${location} parameter '${binding.name}' must not contain CR, LF or NUL characters`,
        pointer: joinPointer("", binding.argument),
      });
    }
    const text = serializeParameter({ binding, value, location });
    if (text !== undefined) result.push([binding.name, text]);
  }
  return result;
}

/** Whether any string in the value (keys included) matches `pattern`. */
function anyText(value: unknown, pattern: RegExp): boolean {
  if (typeof value === "string") return pattern.test(value);
  if (Array.isArray(value)) return value.some((item) => anyText(item, pattern));
  if (isObject(value)) return Object.entries(value).some(([key, item]) => pattern.test(key) || anyText(item, pattern));
  return false;
}

function hasControl(value: unknown): boolean {
  return anyText(value, /[\r\n\0]/);
}

function notFieldValue(value: unknown): boolean {
  return anyText(value, /[^\t\x20-\x7e]/);
}

/** The path template with its placeholders filled, segment by segment, so each filled segment can be checked. */
function expandPath({ operation, args }: { operation: Operation; args: Record<string, unknown> }): string {
  const template = operation.path.startsWith("/") ? operation.path : `/${operation.path}`;
  return template
    .split("/")
    .map((segment, index) => {
      if (index === 0) return segment;
      let filled = "";
      let first: string | undefined;
      let last = 0;
      for (const match of segment.matchAll(/\{([^{}]+)\}/g)) {
        const binding = operation.parameters.path.find((p) => p.name === match[1]);
        const name = binding?.argument ?? match[1]!;
        first ??= name;
        const value = binding
          ? serializeParameter({ binding, value: argument({ args, name }), location: "path" })
          : undefined;
        filled += encodeTemplateText(segment.slice(last, match.index)) + (value ?? "");
        last = match.index + match[0].length;
      }
      filled += encodeTemplateText(segment.slice(last));
      if (first !== undefined) checkSegment({ segment: filled, argument: first });
      return filled;
    })
    .join("/");
}

/**
 * Servers and proxies collapse `.` and `..` segments (even as `%2E`) and `//`: a filled segment that is empty or a
 * dot segment would reach another resource, so it is refused.
 */
function checkSegment({ segment, argument }: { segment: string; argument: string }): void {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not decodable: it cannot be a dot segment either.
  }
  const pointer = joinPointer("", argument);
  if (segment === "") throw new ArgumentError({ message: `path parameter '${argument}' must not be empty`, pointer });
  if (decoded === "." || decoded === "..") {
    throw new ArgumentError({
      message: `path parameter '${argument}' must not be '.' or '..': it would change the path`,
      pointer,
    });
  }
}

/** Literal template text: characters a path may hold stay (and %XX triples the author wrote); the rest is encoded. */
function encodeTemplateText(text: string): string {
  return text.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@%]+/g, (chars) => percentEncode(chars));
}

// Parsed base URLs, by URL: a server calls the same few bases thousands of times.
const bases = new Map<string, { origin: string; path: string; query: string }>();

/** Origin, path (no trailing slash) and query of the base URL; a clear error when there is none to use. */
function baseOf(url: string): { origin: string; path: string; query: string } {
  let base = bases.get(url);
  if (base === undefined) {
    base = parseBase(url);
    if (bases.size < 1_000) bases.set(url, base);
  }
  return base;
}

function parseBase(url: string): { origin: string; path: string; query: string } {
  const hint = "pass --base-url <url> (or set baseUrl for this source)";
  if (url === "")
    throw new OpenApiMcpError({ code: "E_NO_BASE_URL", message: `this API names no server URL: ${hint}` });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OpenApiMcpError({
      code: "E_NO_BASE_URL",
      message: `the server URL '${url}' is not an absolute URL: ${hint}`,
    });
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new OpenApiMcpError({
      code: "E_NO_BASE_URL",
      message: `the server URL '${url}' is not an http(s) URL: ${hint}`,
    });
  }
  return { origin: parsed.origin, path: parsed.pathname.replace(/\/+$/, ""), query: parsed.search.slice(1) };
}
