// Ajv's errors as a person would state them. A value that fails a `oneOf`/`anyOf` gets one error per branch, most
// of them saying "this is not that kind of thing" (a path parameter told its `in` is not `query`); only the
// branches that could have been meant are kept, and each error names its field and what it wants.

import type { ErrorObject } from "ajv/dist/2020.js";
import { isObject, joinPointer, localRefPointer, resolvePointer } from "../catalog/pointer.js";

export interface SchemaProblem {
  pointer: string;
  message: string;
  /** What kind of problem, for grouping: Ajv's keyword. */
  keyword: string;
}

const SECRET_PATTERN = "^\\$\\{([A-Za-z_][A-Za-z0-9_]*|file:[^}]+|cmd:[A-Za-z0-9_.-]+)\\}$";
const ALTERNATIVES = new Set(["oneOf", "anyOf"]);

/**
 * `schema`: the root schema the errors come from, when Ajv ran with `verbose` (each error then carries the schema
 * object it failed in, which tells its branch); without it, branches are told by their schema paths.
 */
export function explainSchemaErrors(
  errors: readonly ErrorObject[],
  { schema }: { schema?: unknown } = {},
): SchemaProblem[] {
  const kept = withoutOtherKinds(errors, schema);
  const twins = twinIndex(kept);
  const problems: SchemaProblem[] = [];
  const byPlace = new Map<string, SchemaProblem>();
  for (const error of kept) {
    if (hasDeeperTwin(error, twins)) continue;
    const problem = problemOf(error);
    if (!problem) continue;
    const place = `${problem.keyword} ${problem.pointer}`;
    const earlier = byPlace.get(place);
    // Several branches wanting different values of one field: one line listing them all.
    if (earlier && error.keyword === "enum") {
      const values = new Set([...earlier.message.replace(/^must be one of: /, "").split(", "), ...allowed(error)]);
      earlier.message = `must be one of: ${[...values].join(", ")}`;
      continue;
    }
    if (earlier?.message === problem.message) continue;
    byPlace.set(place, problem);
    problems.push(problem);
  }
  return problems;
}

/**
 * The errors less those of the branches of a failed oneOf/anyOf that were plainly not meant: a branch whose value
 * has the wrong type at the alternative's own place, fails a one-value enum or const (a discriminator such as
 * `in: query`), or wants a `$ref` the value does not have. When every branch is of that sort, all of them stay,
 * and the alternative above judges: inner alternatives come first in Ajv's list.
 */
function withoutOtherKinds(errors: readonly ErrorObject[], schema: unknown): ErrorObject[] {
  const places = new PlaceIndex(errors);
  const reach = new Reach(schema);
  const dropped = new Set<ErrorObject>();
  const replaced = new Map<ErrorObject, ErrorObject>();
  for (const summary of errors) {
    if (!ALTERNATIVES.has(summary.keyword)) continue;
    // A oneOf that more than one branch passes has no other error to say so.
    if (Array.isArray(summary.params.passingSchemas)) continue;
    dropped.add(summary);
    const here = places.atOrBelow(summary.instancePath).filter((e) => !dropped.has(e) && !ALTERNATIVES.has(e.keyword));
    const { lists, complete } = branches(summary, here, reach);
    const judged = lists.map((list) => ({ list, notMeant: list.some((e) => notMeant(e, summary)) }));
    const meant = new Set(judged.filter((j) => !j.notMeant).flatMap((j) => j.list));
    // Told apart by schema paths, a branch reached through a $ref is not seen: an error no branch claims may be its.
    const unclaimed = !complete && here.some((e) => !judged.some((j) => j.list.includes(e)));
    if (meant.size === 0 && !unclaimed) continue; // no branch was meant: all stay, for the level above to judge
    // An error a meant branch shares (a schema both reach) stays.
    for (const j of judged) if (j.notMeant) for (const e of j.list) if (!meant.has(e)) dropped.add(e);
    eitherField({ summary, meant: judged.filter((j) => !j.notMeant).map((j) => j.list), dropped, replaced });
  }
  return errors.flatMap((e) =>
    replaced.has(e)
      ? [replaced.get(e)!]
      : dropped.has(e) || (e.keyword === "required" && e.params.missingProperty === "$ref")
        ? []
        : [e],
  );
}

/** Branches that each miss one field here (a 3.0 parameter's `schema` or `content`): one error naming them all. */
function eitherField({
  summary,
  meant,
  dropped,
  replaced,
}: {
  summary: ErrorObject;
  meant: ErrorObject[][];
  dropped: Set<ErrorObject>;
  replaced: Map<ErrorObject, ErrorObject>;
}): void {
  const live = meant.map((list) => list.filter((e) => !dropped.has(e)));
  if (
    live.length < 2 ||
    !live.every(
      (list) => list.length === 1 && list[0]!.keyword === "required" && list[0]!.instancePath === summary.instancePath,
    )
  )
    return;
  const fields = [...new Set(live.map((list) => String(list[0]!.params.missingProperty)))];
  const [first, ...rest] = live.map((list) => list[0]!);
  replaced.set(first!, { ...first!, params: { missingProperty: fields.join("' or '") } });
  for (const e of rest) dropped.add(e);
}

/** Whether an error of a branch says the value is not that kind of thing at all. */
function notMeant(e: ErrorObject, summary: ErrorObject): boolean {
  if (e.keyword === "const" || (e.keyword === "enum" && allowed(e).length === 1)) return true;
  return (
    e.instancePath === summary.instancePath &&
    (e.keyword === "type" || (e.keyword === "required" && e.params.missingProperty === "$ref"))
  );
}

/** The errors of each branch of the alternative `summary` reports on, among `here`. */
function branches(
  summary: ErrorObject,
  here: ErrorObject[],
  reach: Reach,
): { lists: ErrorObject[][]; complete: boolean } {
  if (Array.isArray(summary.schema) && here.every((e) => e.parentSchema !== undefined)) {
    const lists = summary.schema.map((branch) => {
      const inside = reach.from(branch);
      return here.filter((e) => inside.has(e.parentSchema as object));
    });
    return { lists, complete: true };
  }
  const result = new Map<string, ErrorObject[]>();
  const prefix = `${summary.schemaPath}/`;
  for (const e of here) {
    if (!e.schemaPath.startsWith(prefix)) continue;
    const branch = e.schemaPath.slice(prefix.length).split("/", 1)[0]!;
    result.set(branch, [...(result.get(branch) ?? []), e]);
  }
  return { lists: [...result.values()], complete: false };
}

/** The schema objects reachable from a branch, `$ref`s (local to the root schema) followed. */
class Reach {
  private readonly memo = new WeakMap<object, Set<object>>();
  constructor(private readonly root: unknown) {}

  from(start: unknown): Set<object> {
    if (!isObject(start) && !Array.isArray(start)) return new Set();
    const known = this.memo.get(start);
    if (known) return known;
    const seen = new Set<object>();
    const stack: unknown[] = [start];
    while (stack.length > 0) {
      const next = stack.pop();
      if ((!isObject(next) && !Array.isArray(next)) || seen.has(next)) continue;
      seen.add(next);
      if (isObject(next) && typeof next.$ref === "string") {
        const target = localRefPointer(next.$ref);
        if (target !== undefined) stack.push(resolvePointer(this.root, target));
      }
      stack.push(...Object.values(next));
    }
    this.memo.set(start, seen);
    return seen;
  }
}

/** Errors sorted by place, so those at or below one place are found by binary search. */
class PlaceIndex {
  private readonly sorted: ErrorObject[];
  private readonly paths: string[];
  constructor(errors: readonly ErrorObject[]) {
    this.sorted = [...errors].sort((a, b) =>
      a.instancePath < b.instancePath ? -1 : a.instancePath > b.instancePath ? 1 : 0,
    );
    this.paths = this.sorted.map((e) => e.instancePath);
  }

  atOrBelow(place: string): ErrorObject[] {
    // "\u0000" sorts right after `place` itself, "0" right after every "place/…".
    const at = this.sorted.slice(lowerBound(this.paths, place), lowerBound(this.paths, `${place}\u0000`));
    return [...at, ...this.sorted.slice(lowerBound(this.paths, `${place}/`), lowerBound(this.paths, `${place}0`))];
  }
}

function lowerBound(sorted: string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Paths by keyword and params, sorted: an error whose twin sits below it is left out (see hasDeeperTwin). */
function twinIndex(errors: readonly ErrorObject[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const e of errors) {
    const key = `${e.keyword} ${JSON.stringify(e.params)}`;
    const paths = index.get(key);
    if (paths) paths.push(e.instancePath);
    else index.set(key, [e.instancePath]);
  }
  for (const paths of index.values()) paths.sort();
  return index;
}

/** The same complaint about an item below (a `type` list with one bad entry) says more than the one here. */
function hasDeeperTwin(error: ErrorObject, index: Map<string, string[]>): boolean {
  const paths = index.get(`${error.keyword} ${JSON.stringify(error.params)}`) ?? [];
  const below = `${error.instancePath}/`;
  return paths[lowerBound(paths, below)]?.startsWith(below) ?? false;
}

function allowed(error: ErrorObject): string[] {
  return ((error.params.allowedValues as unknown[] | undefined) ?? []).map((v) => JSON.stringify(v));
}

/** An Ajv error as a person reads it, or undefined for one that only repeats what another says. */
function problemOf(error: ErrorObject): SchemaProblem | undefined {
  const { instancePath, params, keyword } = error;
  const at = (message: string, pointer = instancePath): SchemaProblem => ({ pointer, message, keyword });
  switch (keyword) {
    case "if":
      return undefined; // the branch's own errors say what is wrong
    case "additionalProperties":
      return at(
        `unknown field '${params.additionalProperty}'`,
        joinPointer(instancePath, String(params.additionalProperty)),
      );
    case "unevaluatedProperties":
      return at(
        `unknown field '${params.unevaluatedProperty}'`,
        joinPointer(instancePath, String(params.unevaluatedProperty)),
      );
    case "required":
      return at(`missing required field '${params.missingProperty}'`);
    case "enum":
      return at(`must be one of: ${allowed(error).join(", ")}`);
    case "const":
      return at(`must be ${JSON.stringify(params.allowedValue)}`);
    case "pattern":
      if (params.pattern === SECRET_PATTERN)
        return at(
          "must be a ${VAR} reference to an environment variable (or ${file:PATH}, ${cmd:NAME}): secrets are never written in the file",
        );
      return at(`must match ${params.pattern}`);
    default:
      return at(error.message ?? "is not valid");
  }
}
