// The check stage: before any credential is read or request built, the call is refused if its tool does not exist,
// reads secrets not assigned to its source, lacks its credentials, or has arguments too big or not of its input
// schema. Each refusal is an error result saying so; nothing is sent.

import type { Tool } from "../../catalog/types.js";
import { unassignedUse } from "../../catalog/secret-reads.js";
import { describeAlternatives, missingCredentials } from "../credentials/credentials.js";
import {
  clipText,
  DEFAULT_MAX_ARGUMENT_VALUES,
  DEFAULT_MAX_ARRAY_ITEMS,
  measureArguments,
  QUOTED_NAME_CHARS,
} from "../checks/bounds.js";
import { listMismatches } from "../checks/mismatches.js";
import { errorResult } from "../http/response.js";
import { answered, type Checked, type Found, type Ran, type Stopped } from "./call.js";
import { environmentOf, userSchemes } from "./environment.js";
import type { EngineParts } from "./parts.js";
import type { Stage } from "./pipeline.js";

export const DEFAULT_MAX_ARGUMENT_BYTES = 4 * 1024 * 1024;
/** Mismatches of arguments named in an error result; the rest are counted. */
const MISMATCHES_SHOWN = 10;

export function checkStage(parts: EngineParts): Stage<Found, Checked, Ran> {
  return async (call, next) => {
    const { found } = call;
    const checked = found
      ? checkCall({ parts, name: call.name, found, args: call.args, dryRun: false })
      : unknownTool(call.name);
    if ("error" in checked) {
      call.record(checked.outcome);
      return answered(checked.error);
    }
    return next(Object.assign(call, checked.found, { given: checked.given }));
  };
}

/** The refusal of a name no tool of this engine has (hidden ones are the binding's to hide). */
export function unknownTool(name: string): Stopped {
  return {
    error: errorResult(`There is no tool named '${clipText(name, QUOTED_NAME_CHARS)}'.`),
    outcome: "invalid_arguments",
  };
}

/** The arguments, bounded and validated, with what was found; or the error result that stops the call. */
export function checkCall<T extends { tool: Tool }>({
  parts,
  name,
  found,
  args,
  dryRun,
}: {
  parts: EngineParts;
  name: string;
  found: T;
  args: unknown;
  /** A dry run shows a placeholder where an unset credential would go instead of stopping. */
  dryRun: boolean;
}): { found: T; given: unknown } | Stopped {
  const { tool } = found;
  const { options } = parts;
  const env = environmentOf({ options, tool });
  // A registry source's or draft's secrets are the operator's to assign (secret-assignments.ts): refused before
  // anything is read, whatever the arguments.
  const assignments = options.secretAssignments;
  const unassigned = assignments && unassignedUse({ tool, credentials: options.catalog.credentials, assignments });
  if (unassigned)
    return {
      error: errorResult(`${name} cannot be called: ${unassigned}. Nothing was sent.`),
      outcome: "secret_unavailable",
    };
  // Before the arguments: no other arguments can help, and the model should not be asked to fix them first.
  const tools = { tools: [tool], credentials: options.catalog.credentials };
  const missing = dryRun ? [] : missingCredentials(tools, env, userSchemes(options));
  if (missing.length > 0) {
    return {
      error: errorResult(
        `${name} cannot be called: its credentials are missing. Whoever runs this server can ${describeAlternatives(missing[0]!.alternatives)}, in its environment or settings file, then restart it. Nothing was sent.`,
      ),
      outcome: "missing_credentials",
    };
  }
  const given = args ?? {};
  return checkArguments({ parts, name, tool, given }) ?? { found, given };
}

/** Bounded before anything else looks at them, then validated: the error result that stops the call, if any. */
function checkArguments({
  parts,
  name,
  tool,
  given,
}: {
  parts: EngineParts;
  name: string;
  tool: Tool;
  given: unknown;
}): Stopped | undefined {
  const { options } = parts;
  // A 50 MB argument, or two million small ones, is refused, not validated, built and sent.
  const measured = measureArguments(given, {
    maxBytes: options.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES,
    maxValues: options.maxArgumentValues ?? DEFAULT_MAX_ARGUMENT_VALUES,
    maxArrayItems: options.maxArrayItems ?? DEFAULT_MAX_ARRAY_ITEMS,
  });
  if ("tooBig" in measured) {
    return {
      error: errorResult(
        `The arguments for ${name} are too big (${measured.tooBig}). Nothing was sent; send less (for files, a smaller one).`,
      ),
      outcome: "invalid_arguments",
    };
  }
  const mismatches = parts.validator.arguments(tool, given);
  if (mismatches[0]?.uncheckable) {
    return {
      error: errorResult(`${name} cannot be called: its arguments ${mismatches[0].message}. Nothing was sent.`),
      outcome: "invalid_arguments",
    };
  }
  if (mismatches.length === 0) return undefined;
  const listed = listMismatches({ mismatches, shown: MISMATCHES_SHOWN });
  const partial = mismatches.partial
    ? " (these arguments are large, so only the first mismatch was looked for: check the rest too)"
    : "";
  return {
    error: errorResult(
      `Invalid arguments for ${name}: ${listed}${partial}. Nothing was sent; correct the arguments and call again (the tool's input schema lists what it takes).`,
    ),
    outcome: "invalid_arguments",
  };
}
