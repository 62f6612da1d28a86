// Code mode's `execute`: a script run in the sandbox (sandbox/run-script.ts) whose `api.<tool>(args)` calls come
// back here as tool calls: each goes where the caller says (the engine's callTool, beginCall or resumeCall, with the
// caller's context), so validation, credentials, policy and approval, rate limits and audit are a direct call's.
// What the model gets back is compact JSON: the value, the logs and the calls made, or why the run stopped.

import { createHash } from "node:crypto";
import { WRAPPED_RESULT_KEY } from "../../catalog/outputs.js";
import type { Tool } from "../../catalog/types.js";
import { errorResult } from "../http/response.js";
import type { ApiAnswer, ScriptOutcome, ScriptRun } from "./sandbox/script.js";
import type { ScriptOrigin, ToolResult } from "../types.js";

export const EXECUTE = "execute";
/** A script is a few dozen lines; a longer one is refused before the sandbox starts. */
export const MAX_SCRIPT_CHARS = 100_000;
/** Distinct entries of the calls list; a loop of 500 calls to one tool is one entry. */
const MAX_CALL_ENTRIES = 20;

export type RunScript = (run: ScriptRun) => Promise<ScriptOutcome>;

/** The script's text, or the error result that refuses it (nothing run, nothing sent). */
export function scriptOf(args: Record<string, unknown>): { code: string } | { result: ToolResult } {
  const { code } = args;
  if (typeof code !== "string" || code.trim() === "")
    return {
      result: errorResult(`${EXECUTE} needs \`code\`: the body of an async function calling api.<tool>(args).`),
    };
  if (code.length > MAX_SCRIPT_CHARS)
    return {
      result: errorResult(`${EXECUTE}: \`code\` is longer than ${MAX_SCRIPT_CHARS} characters. Nothing was run.`),
    };
  return { code };
}

/** Where a script's calls are named on the audit line: `execute` and the first 12 hex digits of its SHA-256. */
export function scriptOrigin(code: string): ScriptOrigin {
  return { via: EXECUTE, digest: createHash("sha256").update(code).digest("hex").slice(0, 12) };
}

/**
 * A tool's result as the script sees it: an error's text (what the model would read) rejects the promise; a
 * success is its structured content (the response itself where MCP needed it wrapped), else its text parsed as
 * JSON, else the text.
 */
export function answerOf({ result, tool }: { result: ToolResult; tool: Tool | undefined }): ApiAnswer {
  const text = result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  if (result.isError) return { ok: false, message: text };
  const structured = result.structuredContent;
  if (structured !== undefined)
    return { ok: true, value: tool?.outputWrapped ? structured[WRAPPED_RESULT_KEY] : structured };
  if (result.content.length === 1 && result.content[0]!.type === "text") {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: true, value: text };
    }
  }
  // Images and files come as their content blocks (base64 data), as the model would get them.
  return { ok: true, value: result.content };
}

/** The outcome as the model reads it: `{ value, logs, calls }`, or `{ error, logs, calls }` as an error result. */
export function outcomeResult(outcome: ScriptOutcome): ToolResult {
  const calls = callList(outcome.apiCalls);
  const done = {
    ...(outcome.logs.length > 0 ? { logs: outcome.logs } : {}),
    ...(calls.length > 0 ? { calls } : {}),
  };
  if (outcome.ok) {
    const text = JSON.stringify({ ...(outcome.value !== undefined ? { value: outcome.value } : {}), ...done });
    return { content: [{ type: "text", text }] };
  }
  const error = outcome.error ?? { kind: "exception", message: "The script failed." };
  return { content: [{ type: "text", text: JSON.stringify({ error, ...done }) }], isError: true };
}

/** The calls made, in order, runs of one tool with one outcome counted: `["issues_list ×3", "issues_get (failed)"]`. */
function callList(calls: ScriptOutcome["apiCalls"]): string[] {
  const runs: Array<{ name: string; count: number }> = [];
  for (const call of calls) {
    const name = `${call.tool}${call.ok ? "" : " (failed)"}`;
    const last = runs.at(-1);
    if (last?.name === name) last.count++;
    else runs.push({ name, count: 1 });
  }
  const shown = runs.slice(0, MAX_CALL_ENTRIES).map(({ name, count }) => (count > 1 ? `${name} ×${count}` : name));
  const rest = runs.slice(MAX_CALL_ENTRIES).reduce((sum, run) => sum + run.count, 0);
  return rest > 0 ? [...shown, `… ${rest} more`] : shown;
}
