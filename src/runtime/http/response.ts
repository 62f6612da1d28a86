// An upstream response as a tool result. JSON becomes structuredContent (checked against the output schema) plus
// the JSON as text; other text stays text; images become image content; other binary an embedded resource.
// Failures are results with `isError: true` that say what happened and what the model can do about it.

import { shortPointer, tooDeep } from "../../catalog/depth.js";
import { isJsonMediaType, mediaTypeParameters, parseMediaType } from "../../catalog/media-type.js";
import type { Tool } from "../../catalog/types.js";
import type { UpstreamResponse } from "./client.js";
import { MAX_RESPONSE_DEPTH } from "../checks/bounds.js";
import type { OutputValidation, ToolResult } from "../types.js";
import { listMismatches } from "../checks/mismatches.js";
import { ResponseText } from "./response-text.js";
import { type Mismatches, placeOf, type Validator } from "../checks/validate.js";

const EXCERPT_CHARS = 1_000;
const MISMATCHES_SHOWN = 5;

export function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

export function mapResponse({
  response,
  tool,
  validator,
  outputValidation,
  method,
  maxBytes = Number.POSITIVE_INFINITY,
  shownUrl = (url) => url,
  text: guard = new ResponseText({ mode: "strip", mark: false }),
}: {
  response: UpstreamResponse;
  tool: Tool;
  validator: Validator;
  outputValidation: OutputValidation;
  method: string;
  /** The limit on what a result carries of the body (--max-response-bytes). */
  maxBytes?: number;
  /** How the URL shows in messages (masked and cut by the engine). */
  shownUrl?: (url: string) => string;
  /** What the API's text looks like to the model (hidden characters, the data mark); it counts what it removes. */
  text?: ResponseText;
}): ToolResult {
  const where = `[${method}] "${shownUrl(response.url)}"`;
  const contentType = response.headers["content-type"] ?? "";
  if (response.status < 200 || response.status >= 300) return failure({ response, where, guard });
  const promisesJson = tool.outputSchema !== undefined && outputValidation === "strict";
  if (response.body.length === 0) {
    if (promisesJson)
      return errorResult(
        `${where}: ${response.status} ${response.statusText}, but with no content where this tool's output schema promises JSON.`,
      );
    return {
      content: [
        {
          type: "text",
          text: `${response.status} ${response.statusText}: the request succeeded; there is no content.`,
        },
      ],
    };
  }
  if (isJsonMediaType(contentType) || (promisesJson && contentType === ""))
    return json({ response, tool, validator, outputValidation, where, maxBytes, guard });
  // A tool with an output schema must answer with structured content; MCP clients refuse the whole call otherwise.
  if (promisesJson) {
    return errorResult(
      `${where}: ${response.status} ${response.statusText}, but the content is ${contentType}, not the JSON this tool's output schema promises. Excerpt:\n${guard.marked(excerpt(response, guard))}`,
    );
  }
  const media = parseMediaType(contentType);
  if (
    !media ||
    media.type === "text" ||
    media.subtype === "xml" ||
    media.suffix === "xml" ||
    media.subtype === "x-www-form-urlencoded"
  ) {
    const text = guard.marked(guard.text(textOf(response)));
    return { content: [{ type: "text", text: response.truncated ? `${text}\n${truncationNote(response)}` : text }] };
  }
  // A cut image or file is useless: say so rather than hand over broken bytes.
  if (response.truncated)
    return errorResult(
      `${where}: the ${media.type}/${media.subtype} content is larger than ${limitOf(response)} bytes, the limit (--max-response-bytes).`,
    );
  const data = response.body.toString("base64");
  const mimeType = `${media.type}/${media.subtype}`;
  if (media.type === "image") return { content: [{ type: "image", data, mimeType }] };
  return { content: [{ type: "resource", resource: { uri: response.url, mimeType, blob: data } }] };
}

function json({
  response,
  tool,
  validator,
  outputValidation,
  where,
  maxBytes,
  guard,
}: {
  response: UpstreamResponse;
  tool: Tool;
  validator: Validator;
  outputValidation: OutputValidation;
  where: string;
  maxBytes: number;
  guard: ResponseText;
}): ToolResult {
  if (response.truncated) {
    return errorResult(
      `${where}: the JSON response is larger than ${limitOf(response)} bytes, the limit (--max-response-bytes), so it cannot be used. Ask for less: use the operation's filters or paging arguments if it has them.`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(textOf(response));
  } catch {
    return errorResult(
      `${where}: the upstream said it sent JSON but the body is not valid JSON. Excerpt:\n${guard.marked(excerpt(response, guard))}`,
    );
  }
  // Measured before anything recursive (stringify, validation, masking) runs on it, which a deep enough body
  // would run out of call stack.
  const deep = tooDeep(data, MAX_RESPONSE_DEPTH);
  if (deep !== undefined) {
    return errorResult(
      `${where}: the JSON response is nested more than ${MAX_RESPONSE_DEPTH} levels deep (at ${shortPointer(deep, 80)}), more than this server handles, so it cannot be used.`,
    );
  }
  // Hidden characters go before the output schema's check, which then checks what is sent: a client that checks
  // structured content against the schema itself (the SDK's does) sees the same result.
  const visible = guard.json({ value: data, json: JSON.stringify(data) });
  data = visible.value;
  const text = visible.json;
  // Written out again, JSON can grow (`1e20` is 21 digits): the result, which carries it twice (as text and as
  // structured content), is held to the limit as the body was.
  if (text.length > maxBytes) {
    return errorResult(
      `${where}: the JSON response, written out, is larger than ${maxBytes} bytes, the limit (--max-response-bytes), so it cannot be used. Ask for less: use the operation's filters or paging arguments if it has them.`,
    );
  }
  const structured = tool.outputWrapped ? { result: data } : data;
  const isObject = structured !== null && typeof structured === "object" && !Array.isArray(structured);
  if (outputValidation === "off" || !tool.outputSchema) {
    return isObject
      ? {
          content: [{ type: "text", text: guard.marked(text) }],
          structuredContent: structured as Record<string, unknown>,
        }
      : { content: [{ type: "text", text: guard.marked(text) }] };
  }
  const mismatches: Mismatches = isObject
    ? validator.output(tool, structured)
    : [{ pointer: "", message: "must be an object" }];
  if (mismatches.length === 0)
    return {
      content: [{ type: "text", text: guard.marked(text) }],
      structuredContent: structured as Record<string, unknown>,
    };
  const listed = describeMismatches(mismatches, tool.outputWrapped === true);
  if (outputValidation === "strict") {
    return errorResult(
      `${where}: the response does not match the tool's output schema (${listed}). The upstream API differs from its description; the raw response was:\n${guard.marked(text.slice(0, EXCERPT_CHARS))}`,
    );
  }
  // warn: the data, with the mismatch said plainly (no outputSchema is advertised in this mode).
  return {
    content: [
      {
        type: "text",
        text: `${guard.marked(text)}\n[note: this response does not match the documented schema: ${listed}]`,
      },
    ],
  };
}

function failure({
  response,
  where,
  guard,
}: {
  response: UpstreamResponse;
  where: string;
  guard: ResponseText;
}): ToolResult {
  const lines = [`${where}: ${response.status} ${response.statusText}`.trimEnd()];
  const body = excerpt(response, guard);
  if (body) lines.push(guard.marked(body));
  const hint =
    HINTS[response.status] ??
    (response.status >= 500 ? "The API failed on its side; trying again later may work." : undefined);
  if (hint) lines.push(response.status === 429 ? `${hint}${retryAfter(response.headers["retry-after"], guard)}` : hint);
  return errorResult(lines.join("\n"));
}

const HINTS: Record<number, string> = {
  400: "The API refused the arguments: check them against the message above and the tool's input schema.",
  401: "The API did not accept the credentials; they come from the server's configuration, not from the arguments.",
  403: "The credentials in use are not allowed to do this.",
  404: "Nothing was found there: check the ids and names in the arguments.",
  409: "The request conflicts with the current state of the resource.",
  422: "The API could not process the arguments: check them against the message above.",
  429: "The API is rate limiting these calls: wait before trying again.",
};

/** Retry-After is a number of seconds or an HTTP date. */
function retryAfter(header: string | undefined, guard: ResponseText): string {
  if (header === undefined) return "";
  const value = guard.text(header);
  const seconds = value.trim();
  if (/^\d+$/.test(seconds)) return ` It asks to wait ${seconds} second${seconds === "1" ? "" : "s"} (Retry-After).`;
  return ` It asks to wait until ${seconds} (Retry-After).`;
}

function describeMismatches(mismatches: Mismatches, wrapped: boolean): string {
  const place = (pointer: string): string => {
    const inResponse = wrapped ? pointer.replace(/^\/result/, "") : pointer;
    return inResponse === "" ? "the response" : placeOf(inResponse);
  };
  const listed = listMismatches({ mismatches, shown: MISMATCHES_SHOWN, place });
  return mismatches.partial
    ? `${listed}, and maybe more: a response this large is checked up to its first mismatch`
    : listed;
}

/** The body's start, hidden characters removed first so that the excerpt is as long as what shows. */
function excerpt(response: UpstreamResponse, guard: ResponseText): string {
  const body = textOf(response);
  const json = !response.truncated && isJsonMediaType(response.headers["content-type"] ?? "");
  const text = guard.text(json ? guard.jsonBody(body) : body).trim();
  return text.length > EXCERPT_CHARS || response.truncated ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

function truncationNote(response: UpstreamResponse): string {
  return `[truncated: the response is longer than ${limitOf(response)} bytes, the limit (--max-response-bytes)]`;
}

function limitOf(response: UpstreamResponse): number {
  return response.limit ?? response.body.length;
}

/** The body as text: decoded and masked already when the engine masked it. */
function textOf(response: UpstreamResponse): string {
  return response.text ?? decode(response.body, response.headers["content-type"] ?? "");
}

export function decode(body: Buffer, contentType: string): string {
  const charset = mediaTypeParameters(contentType).charset ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
