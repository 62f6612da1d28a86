// Custom action definitions: checked against schemas/action-definition.schema.json, then against the rules a
// schema cannot state (unique action names, no literal secrets in headers).

import type { ActionDefinition } from "../catalog/actions.js";
import { TRANSPORT_HEADERS } from "../catalog/http-headers.js";
import { isObject } from "../catalog/pointer.js";
import type { Parsed } from "./parse.js";
import { problemLine, refuse, schemaProblems } from "./schema-check.js";
import type { Environment } from "./variables.js";
import { expandVariables } from "./variables.js";

// Headers that carry credentials: their values must come from the environment, never the file.
const SENSITIVE_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token|x-access-token)$/i;

export function readActionDefinition({ parsed, file, env }: { parsed: Parsed; file: string; env: Environment }): ActionDefinition {
  upperCaseMethods(parsed.value);
  const problems = [...schemaProblems({ schemaName: "action-definition", parsed, file }), ...ruleProblems({ parsed, file })];
  refuse({ problems, file, what: "action definition" });
  const definition = parsed.value as ActionDefinition;
  return { ...definition, baseUrl: expandVariables({ text: definition.baseUrl, env, place: `${file}#/baseUrl` }) };
}

/** What the schema cannot say; written defensively, since it also runs on definitions the schema refused. */
function ruleProblems({ parsed, file }: { parsed: Parsed; file: string }): string[] {
  const value = parsed.value as Record<string, unknown>;
  const actions = Array.isArray(value.actions) ? value.actions : [];
  const problems: string[] = [];
  const seen = new Map<unknown, number>();
  actions.forEach((action, i) => {
    if (!isObject(action) || typeof action.name !== "string") return;
    const first = seen.get(action.name);
    if (first !== undefined) problems.push(problemLine({ parsed, file, pointer: `/actions/${i}/name`, message: `action name '${action.name}' is already used by #/actions/${first}` }));
    else seen.set(action.name, i);
  });
  const headerPlaces: Array<[string, unknown]> = [["/headers", value.headers], ...actions.map((a, i): [string, unknown] => [`/actions/${i}/headers`, isObject(a) ? a.headers : undefined])];
  for (const [pointer, headers] of headerPlaces) {
    if (!isObject(headers)) continue;
    for (const [name, header] of Object.entries(headers)) {
      if (TRANSPORT_HEADERS.has(name.toLowerCase())) {
        problems.push(problemLine({ parsed, file, pointer: `${pointer}/${name}`, message: `'${name}' is set by HTTP itself and cannot be a static header` }));
      }
      if (SENSITIVE_HEADER.test(name) && typeof header === "string" && !header.includes("${")) {
        problems.push(problemLine({ parsed, file, pointer: `${pointer}/${name}`, message: "a credential header must not hold a literal value; use 'auth' or a ${VAR} reference" }));
      }
    }
  }
  return problems;
}

/** `method: get` is as clear as `GET`; the schema lists the upper-case verbs. */
function upperCaseMethods(value: unknown): void {
  if (!isObject(value) || !Array.isArray(value.actions)) return;
  for (const action of value.actions) if (isObject(action) && typeof action.method === "string") action.method = action.method.toUpperCase();
}
