// Server variable values set by the user: `--server-var name=value`, `serverVariables` in the settings file (both for
// every source) and per source in a manifest. The run's own choices win: command line, then settings, then the
// manifest's source, then the document's default. A value no chosen server uses is said to be ignored.

import type { Diagnostic } from "../catalog/types.js";
import type { ServerVariableInput } from "./openapi/server-variable-input.js";

export type ServerVariableValues = Map<string, { value: string; place: string }>;

/** The values `options` carry, each with its place (`--server-var name=value` unless `places` says otherwise). */
export function givenServerVariables({
  values = {},
  places = {},
}: {
  values?: Record<string, string> | undefined;
  places?: Record<string, string> | undefined;
}): ServerVariableValues {
  const result: ServerVariableValues = new Map();
  for (const [name, value] of Object.entries(values)) {
    result.set(name, {
      value: String(value),
      place: Object.hasOwn(places, name) ? places[name]! : `--server-var ${name}=${value}`,
    });
  }
  return result;
}

/** A manifest source's own values under the run's: the run's win. */
export function withSourceValues({
  run,
  own,
  place,
}: {
  run: ServerVariableValues;
  own: Record<string, unknown> | undefined;
  place: string;
}): ServerVariableValues {
  const result: ServerVariableValues = new Map();
  for (const [name, value] of Object.entries(own ?? {}))
    result.set(name, { value: String(value), place: `${place}/${name}` });
  for (const [name, given] of run) result.set(name, given);
  return result;
}

/** A warning for each value (of `only`, if given) that no chosen server of the sources read uses. */
export function unusedServerVariables({
  input,
  only,
  file,
}: {
  input: ServerVariableInput;
  only?: (name: string) => boolean;
  file?: string;
}): Diagnostic[] {
  const unused = [...input.values].filter(([name]) => !input.used.has(name) && (only?.(name) ?? true));
  return unused.map(
    ([name, { place }]): Diagnostic => ({
      severity: "warning",
      code: "unused-server-variable",
      message: `${place}: no server ${file ? `of ${file} ` : ""}in use has a variable {${name}}; ignored`,
    }),
  );
}
