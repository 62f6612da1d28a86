// What a registry source's name may be: one file name in the registry directory, never a path. Every way in that
// takes a name (the Author page's check, try and publish, Registry.publish, Drafts) asks this one rule first: a
// name is joined to the directory, and `../../../../d.yaml` would otherwise place a draft at `/`, where every file
// of the machine counts as beside it.

import { UserError } from "../catalog/errors.js";

/** A document or definition, not an editor's temporary file (`.x.swp`) nor a path. */
export const SOURCE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(json|ya?ml)$/;
/** Longer names are refused (file systems take 255 bytes; messages quote the name). */
const MAX_NAME = 200;

/** Why `name` cannot be a source's name, or undefined when it can. */
export function sourceNameProblem(name: string): string | undefined {
  if (name.length <= MAX_NAME && SOURCE_NAME.test(name)) return undefined;
  const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
  return `'${shown}': a source's name is a file name ending in .json, .yaml or .yml (letters, digits, '.', '-', '_'; at most ${MAX_NAME} characters), not a path`;
}

/** Throws a UserError naming what was being done (`cannot publish`) when `name` cannot be a source's name. */
export function checkSourceName({ name, doing }: { name: string; doing: string }): void {
  const problem = sourceNameProblem(name);
  if (problem) throw new UserError({ code: "E_REGISTRY", message: `cannot ${doing} ${problem}` });
}
