// The rules of an action definition that its JSON Schema cannot state: unique action names, no literal secrets or
// HTTP's own headers among static headers, a property for every `{placeholder}` of a path, an object input, no
// argument sent as a reserved header, and `$ref`s that resolve. Checked with the schema, so one round reports every
// error of a file. Written defensively: they also run on definitions the schema refused.

import { isReservedHeader, TRANSPORT_HEADERS } from "../catalog/http-headers.js";
import { isObject, joinPointer, localRefPointer, resolvePointer } from "../catalog/pointer.js";

// Headers that carry credentials: their values must come from the environment, never the file.
const SENSITIVE_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token|x-access-token)$/i;
const MAX_REF_HOPS = 32;
// Keywords holding data, not schemas: a `$ref` in an example is just text.
const VALUES = new Set(["$ref", "enum", "const", "default", "examples", "example"]);

export interface RuleProblem {
  pointer: string;
  message: string;
}

export function actionRuleProblems(value: unknown): RuleProblem[] {
  if (!isObject(value)) return [];
  const actions = Array.isArray(value.actions) ? value.actions : [];
  const problems: RuleProblem[] = [];
  const seen = new Map<unknown, number>();
  actions.forEach((action, i) => {
    if (!isObject(action)) return;
    if (typeof action.name === "string") {
      const first = seen.get(action.name);
      if (first !== undefined)
        problems.push({
          pointer: `/actions/${i}/name`,
          message: `action name '${action.name}' is already used by #/actions/${first}`,
        });
      else seen.set(action.name, i);
    }
    problems.push(...inputProblems({ root: value, action, pointer: `/actions/${i}` }));
  });
  const headerPlaces: Array<[string, unknown]> = [
    ["/headers", value.headers],
    ...actions.map((a, i): [string, unknown] => [`/actions/${i}/headers`, isObject(a) ? a.headers : undefined]),
  ];
  for (const [pointer, headers] of headerPlaces) {
    if (!isObject(headers)) continue;
    for (const [name, header] of Object.entries(headers)) {
      if (TRANSPORT_HEADERS.has(name.toLowerCase()))
        problems.push({
          pointer: joinPointer(pointer, name),
          message: `'${name}' is set by HTTP itself and cannot be a static header`,
        });
      if (SENSITIVE_HEADER.test(name) && typeof header === "string" && !header.includes("${")) {
        problems.push({
          pointer: joinPointer(pointer, name),
          message: "a credential header must not hold a literal value; use 'auth' or a ${VAR} reference",
        });
      }
    }
  }
  problems.push(...refProblems(value));
  return problems;
}

/** What an action's arguments need: an object schema, a property per path placeholder, no reserved header. */
function inputProblems({
  root,
  action,
  pointer,
}: {
  root: Record<string, unknown>;
  action: Record<string, unknown>;
  pointer: string;
}): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const input = followRefs(root, action.inputSchema);
  if (isObject(input) && input.type !== undefined && input.type !== "object") {
    problems.push({
      pointer: `${pointer}/inputSchema`,
      message: `inputSchema must describe an object (found type ${JSON.stringify(input.type)})`,
    });
  }
  const properties = isObject(input) && isObject(input.properties) ? input.properties : {};
  const path = typeof action.path === "string" ? action.path : "";
  for (const [, name] of path.matchAll(/\{([^{}]+)\}/g)) {
    if (!Object.hasOwn(properties, name!))
      problems.push({
        pointer: `${pointer}/path`,
        message: `path placeholder {${name}} has no property in inputSchema`,
      });
  }
  for (const [argument, placement] of Object.entries(isObject(action.in) ? action.in : {})) {
    const location = isObject(placement) ? placement.in : placement;
    const header = isObject(placement) && typeof placement.name === "string" ? placement.name : argument;
    if (location === "header" && isReservedHeader(header)) {
      problems.push({
        pointer: joinPointer(`${pointer}/in`, argument),
        message: `'${header}' is set by HTTP or by openapi-mcp; an argument cannot be sent as that header`,
      });
    }
  }
  return problems;
}

function followRefs(root: unknown, schema: unknown): unknown {
  let current = schema;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string" && hops < MAX_REF_HOPS; hops++) {
    const target = localRefPointer(current.$ref);
    current = target === undefined ? undefined : resolvePointer(root, target);
  }
  return current;
}

/** Every `$ref` in the definition's schemas leads to something in the definition. */
function refProblems(root: Record<string, unknown>): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const stack: Array<{ value: unknown; pointer: string }> = [];
  if (isObject(root.schemas)) stack.push({ value: root.schemas, pointer: "/schemas" });
  if (Array.isArray(root.actions)) {
    root.actions.forEach((action, i) => {
      if (isObject(action))
        for (const key of ["inputSchema", "outputSchema"])
          stack.push({ value: action[key], pointer: `/actions/${i}/${key}` });
    });
  }
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, pointer } = next;
    if (Array.isArray(value))
      for (const [i, item] of value.entries()) stack.push({ value: item, pointer: joinPointer(pointer, i) });
    if (!isObject(value)) continue;
    if (typeof value.$ref === "string") {
      const target = localRefPointer(value.$ref);
      if (target === undefined)
        problems.push({
          pointer: `${pointer}/$ref`,
          message: `$ref '${value.$ref}' points outside the definition; use #/schemas/<name>`,
        });
      else if (resolvePointer(root, target) === undefined)
        problems.push({
          pointer: `${pointer}/$ref`,
          message: `$ref '${value.$ref}' does not resolve: nothing is at that place in the definition`,
        });
    }
    for (const [key, item] of Object.entries(value))
      if (!VALUES.has(key) && typeof item === "object") stack.push({ value: item, pointer: joinPointer(pointer, key) });
  }
  return problems;
}
