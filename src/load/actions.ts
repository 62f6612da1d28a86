// Custom action definitions: checked against schemas/action-definition.schema.json (their schemas against JSON
// Schema 2020-12) and against the rules a schema cannot state (action-rules.ts), all in one round.

import type { ActionDefinition } from "../catalog/action-definition.js";
import { isObject } from "../catalog/pointer.js";
import { actionRuleProblems } from "./action-rules.js";
import type { Parsed } from "./parse.js";
import { problemLine, problemLines, refuse, schemaProblems } from "./schema-check.js";
import { unassignedVariable } from "./secret-assignment-check.js";
import type { SecretAssignments } from "../catalog/secret-assignments.js";
import type { Environment } from "../catalog/variables.js";
import { expandVariables } from "../catalog/variables.js";

export function readActionDefinition({
  parsed,
  file,
  env,
  assignments,
}: {
  parsed: Parsed;
  file: string;
  env: Environment;
  /** A registry source's or draft's: its base URL may name only the variables assigned to its namespace. */
  assignments?: { of: SecretAssignments; id: string };
}): ActionDefinition {
  upperCaseMethods(parsed.value);
  const problems = [
    ...schemaProblems({ schemaName: "action-definition", parsed, file }),
    ...problemLines({ parsed, file, problems: actionRuleProblems(parsed.value) }),
  ];
  refuse({ problems, file, what: "action definition" });
  const definition = parsed.value as ActionDefinition;
  const unassigned =
    assignments && unassignedVariable({ text: definition.baseUrl, assignments: assignments.of, id: assignments.id });
  if (unassigned)
    refuse({
      problems: [problemLine({ parsed, file, pointer: "/baseUrl", message: unassigned })],
      file,
      what: "action definition",
    });
  return { ...definition, baseUrl: expandVariables({ text: definition.baseUrl, env, place: `${file}#/baseUrl` }) };
}

/** `method: get` is as clear as `GET`; the schema lists the upper-case verbs. */
function upperCaseMethods(value: unknown): void {
  if (!isObject(value) || !Array.isArray(value.actions)) return;
  for (const action of value.actions)
    if (isObject(action) && typeof action.method === "string") action.method = action.method.toUpperCase();
}
