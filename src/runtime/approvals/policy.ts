// Policy: whether a tool may be called freely (allow), only once a human approves each call (approve), or not at
// all (deny); set per side-effect class and per tool, from `--policy <target>=<decision>` and the settings file.
//
// Resolution, strictest last:
//   1. a policy naming the tool, else the policy of its class (read, write, destructive);
//   2. `approval: true` in an action definition raises allow to approve: the definition's author asked for a human
//      in the loop, and no policy lifts that (deny still wins; to drop the approval, edit the definition);
//   3. deny wins over everything.

import { UserError } from "../../catalog/errors.js";
import type { SideEffect } from "../../catalog/types.js";

export type Decision = "allow" | "approve" | "deny";
/** What a denied tool looks like to the client: left out of tools/list, or listed and refused when called. */
export type DenyMode = "hide" | "refuse";

export interface Policies {
  classes: Record<SideEffect, Decision>;
  /** Decisions for single tools by name; they beat the class's. */
  tools: Record<string, Decision>;
  denyMode: DenyMode;
}

export const DECISIONS: readonly Decision[] = ["allow", "approve", "deny"];
export const SIDE_EFFECTS: readonly SideEffect[] = ["read", "write", "destructive"];

/**
 * The defaults. Reads and writes are allowed: approving every POST would make most APIs tiresome to use, and
 * unusable from a client without elicitation. Destructive calls (DELETE) ask first: they cannot be undone, and
 * DESIGN promises the approval gate on by default. The price: a client without elicitation (or a stateless HTTP
 * server, which cannot ask) gets an error result for DELETE tools instead of a silent deletion, and that result
 * names the setting to change (`--policy destructive=allow`, or the tool's name). Failing loudly and fixably
 * beats deleting without asking. Denied tools are hidden, so the model does not spend tokens on or try them.
 */
export const DEFAULT_POLICIES: Readonly<Policies> = Object.freeze({
  classes: Object.freeze({ read: "allow", write: "allow", destructive: "approve" }) as Record<SideEffect, Decision>,
  tools: Object.freeze({}) as Record<string, Decision>,
  denyMode: "hide",
});

/** A policy a user wrote that cannot be applied: its message names the entry and what is wrong. */
export class PolicyError extends UserError {
  constructor(message: string) {
    super({ code: "E_POLICY", message });
  }
}

const STRICTNESS: Record<Decision, number> = { allow: 0, approve: 1, deny: 2 };
const TOOL_PREFIX = "tool:";

/**
 * Applies policy entries over `base` (default: DEFAULT_POLICIES), later entries winning. Each text is
 * `<target>=<decision>`, or several separated by commas; the target is `read`, `write`, `destructive` or a tool
 * name (`tool:<name>` names a tool even when it is called `read`); the decision is allow, approve or deny (any
 * case). Every problem is collected into one PolicyError; a tool name that is not one of `toolNames` is named with
 * the closest names that are.
 */
export function parsePolicies(
  texts: readonly string[],
  toolNames: readonly string[],
  base: Readonly<Policies> = DEFAULT_POLICIES,
): Policies {
  // A null prototype, so a tool named `__proto__` or `constructor` is just a key.
  const tools = Object.assign(Object.create(null) as Record<string, Decision>, base.tools);
  const policies: Policies = { classes: { ...base.classes }, tools, denyMode: base.denyMode };
  const known = new Set(toolNames);
  const problems: string[] = [];
  for (const text of texts) {
    for (const entry of text.split(",")) {
      const problem = applyEntry({ entry: entry.trim(), policies, known, toolNames });
      if (problem) problems.push(problem);
    }
  }
  if (problems.length === 1) throw new PolicyError(problems[0]!);
  if (problems.length > 1) throw new PolicyError(`Invalid policies:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  return policies;
}

function applyEntry({
  entry,
  policies,
  known,
  toolNames,
}: {
  entry: string;
  policies: Policies;
  known: ReadonlySet<string>;
  toolNames: readonly string[];
}): string | undefined {
  const expected = "expected <target>=<allow|approve|deny> (target: read, write, destructive or a tool name)";
  if (entry === "") return `empty policy: ${expected}`;
  const equals = entry.indexOf("=");
  if (equals < 0) return `policy '${entry}' has no decision: ${expected}`;
  const target = entry.slice(0, equals).trim();
  const value = entry.slice(equals + 1).trim();
  if (target === "") return `policy '${entry}' names no target: ${expected}`;
  const decision = value.toLowerCase();
  if (!isDecision(decision)) return `policy '${entry}': '${value}' is not a decision; use allow, approve or deny`;
  if (!target.startsWith(TOOL_PREFIX) && isSideEffect(target)) {
    policies.classes[target] = decision;
    return undefined;
  }
  const tool = target.startsWith(TOOL_PREFIX) ? target.slice(TOOL_PREFIX.length) : target;
  if (!known.has(tool)) return `policy '${entry}': ${unknownTool(tool, toolNames)}`;
  policies.tools[tool] = decision;
  return undefined;
}

function unknownTool(name: string, toolNames: readonly string[]): string {
  const near = nearMatches(name, toolNames);
  const hint = near.length > 0 ? `; did you mean ${near.map((n) => `'${n}'`).join(", ")}?` : "";
  const classes = isSideEffect(name.toLowerCase()) ? ` (classes are lower case: '${name.toLowerCase()}')` : "";
  return `there is no tool named '${name}'${classes}${hint}`;
}

/**
 * Up to `limit` names close to `name`, closest first: the same but for case, ending in `__<name>` (a source's
 * namespace left off), or a small edit away (a third of the length, at least 2).
 */
export function nearMatches(name: string, names: readonly string[], limit = 3): string[] {
  const lower = name.toLowerCase();
  const scored: Array<{ name: string; score: number }> = [];
  const budget = Math.max(2, Math.floor(name.length / 3));
  for (const candidate of names) {
    const other = candidate.toLowerCase();
    let score: number | undefined;
    if (other === lower) score = 0;
    else if (other.endsWith(`__${lower}`)) score = 0.5;
    else {
      const distance = editDistance(lower, other, budget);
      if (distance <= budget) score = distance;
    }
    if (score !== undefined) scored.push({ name: candidate, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, limit).map((s) => s.name);
}

/** Levenshtein distance, or `budget + 1` once it is sure to exceed `budget`. */
function editDistance(a: string, b: string, budget: number): number {
  if (Math.abs(a.length - b.length) > budget) return budget + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      if (value < best) best = value;
    }
    if (best > budget) return budget + 1;
    previous = current;
  }
  return previous[b.length]!;
}

export interface PolicyTool {
  name: string;
  effect: SideEffect;
  /** The source asks for human approval before each call (action definitions' `approval: true`). */
  approval?: boolean;
}

/** A tool's decision and what it comes from, for messages ("…because of --policy deleteUser=deny"). */
export interface Resolved {
  decision: Decision;
  /** `tool`: a policy names it; `class`: its class's policy applies; `definition`: `approval: true` raised it. */
  from: "tool" | "class" | "definition";
  /** The entry that decided, as a user would write it: `deleteUser=deny`, `destructive=approve`, `approval: true`. */
  rule: string;
}

export function resolve(tool: PolicyTool, policies: Readonly<Policies>): Resolved {
  const named = Object.hasOwn(policies.tools, tool.name) ? policies.tools[tool.name] : undefined;
  const byClass = policies.classes[tool.effect];
  let resolved: Resolved = named
    ? { decision: named, from: "tool", rule: `${tool.name}=${named}` }
    : { decision: byClass, from: "class", rule: `${tool.effect}=${byClass}` };
  if (tool.approval === true && STRICTNESS[resolved.decision] < STRICTNESS.approve) {
    resolved = { decision: "approve", from: "definition", rule: "approval: true" };
  }
  return resolved;
}

export function decide(tool: PolicyTool, policies: Readonly<Policies>): Decision {
  return resolve(tool, policies).decision;
}

/** Whether `tools/list` shows the tool: denied tools are hidden unless the deny mode is `refuse`. */
export function isListed(tool: PolicyTool, policies: Readonly<Policies>): boolean {
  return policies.denyMode === "refuse" || decide(tool, policies) !== "deny";
}

export function isDecision(value: string): value is Decision {
  return (DECISIONS as readonly string[]).includes(value);
}

function isSideEffect(value: string): value is SideEffect {
  return (SIDE_EFFECTS as readonly string[]).includes(value);
}

export function isDenyMode(value: string): value is DenyMode {
  return value === "hide" || value === "refuse";
}
