// Values leaving the engine: the return value as JSON text (measured inside before it is copied out), and a thrown
// value as a message a model can act on, with the line and column of the script as written. The engine's own
// "out of memory" and "stack overflow" errors are limits, not the script's exceptions.

import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { LINE_OFFSET } from "./prelude.js";
import type { ScriptLimits, ScriptOutcome } from "./script.js";

type Copied = { kind: "value"; value: unknown } | { kind: "thrown"; error: QuickJSHandle } | { kind: "tooLarge" };

export function copyOut({
  context,
  value,
  stringify,
  room,
}: {
  context: QuickJSContext;
  value: QuickJSHandle;
  stringify: QuickJSHandle;
  room: number;
}): Copied {
  // A string too long is refused before JSON.stringify copies it inside.
  if (context.typeof(value) === "string" && context.getNumber(context.getProp(value, "length")) > room)
    return { kind: "tooLarge" };
  const result = context.callFunction(stringify, context.undefined, value);
  if (result.error) return { kind: "thrown", error: result.error };
  if (context.typeof(result.value) !== "string") return { kind: "value", value: undefined };
  // UTF-8 takes at least one byte a character: too many characters is too many bytes, before any copy.
  if (context.getNumber(context.getProp(result.value, "length")) > room) return { kind: "tooLarge" };
  const text = context.getString(result.value);
  if (Buffer.byteLength(text) > room) return { kind: "tooLarge" };
  return { kind: "value", value: JSON.parse(text) };
}

export type Described =
  | { limit: keyof ScriptLimits; error?: undefined }
  | { limit?: undefined; error: NonNullable<ScriptOutcome["error"]> };

export function describeError(
  context: QuickJSContext,
  thrown: QuickJSHandle,
  { compile = false, lines = Number.POSITIVE_INFINITY }: { compile?: boolean; lines?: number } = {},
): Described {
  if (context.typeof(thrown) !== "object") return { error: { kind: "exception", message: show(context, thrown) } };
  const name = readString(context, thrown, "name");
  const message = readString(context, thrown, "message");
  if (name === "InternalError" && message === "out of memory") return { limit: "memoryBytes" };
  if (/^(InternalError|RangeError)$/.test(name ?? "") && /stack overflow|call stack/i.test(message ?? ""))
    return { limit: "stackBytes" };
  const text = name === undefined && message === undefined ? show(context, thrown) : `${name ?? "Error"}: ${message}`;
  const kind = compile && name === "SyntaxError" ? "syntax" : "exception";
  const at = /script\.js:(\d+):(\d+)/.exec(readString(context, thrown, "stack") ?? "");
  const line = Number(at?.[1]) - LINE_OFFSET;
  const where = at && line >= 1 && line <= lines ? { line, column: Number(at[2]) } : {};
  return { error: { kind, message: text, ...where } };
}

function readString(context: QuickJSContext, handle: QuickJSHandle, key: string): string | undefined {
  try {
    const value = context.getProp(handle, key);
    return context.typeof(value) === "string" ? context.getString(value) : undefined;
  } catch {
    // A getter that throws, or the engine stopped inside it: the message goes without this part.
    return undefined;
  }
}

function show(context: QuickJSContext, handle: QuickJSHandle): string {
  try {
    const dumped: unknown = context.dump(handle);
    return typeof dumped === "string" ? dumped : (JSON.stringify(dumped) ?? String(dumped));
  } catch {
    return "an unprintable value";
  }
}
