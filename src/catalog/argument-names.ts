// Argument names every client can carry. A tool's arguments are the top-level properties of its input schema, and
// clients check those names: the SDK client's zod record turns a `__proto__` property into the parsed object's
// prototype (the argument vanishes while `required` still names it), and Anthropic's API (so every Claude client)
// and Bedrock refuse the whole request when one tool has a top-level property name outside `^[a-zA-Z0-9_.-]{1,64}$`
// (`$select`, `filter[status]`, `Account Number`). Such a parameter gets a safe argument name; the request still
// sends the name the document gives (bindings carry both).

import { fitName, sanitizeName } from "./naming.js";

const SAFE = /^[A-Za-z0-9_.-]{1,64}$/;
/** What a name made only of characters no client accepts becomes. */
const FALLBACK = "argument";

export function isSafeArgument(name: string): boolean {
  return SAFE.test(name) && name !== "__proto__";
}

/** `$select` → `select`, `filter[status]` → `filter_status`, `__proto__` → `proto`; safe names stay as they are. */
export function safeArgument(name: string): string {
  if (isSafeArgument(name)) return name;
  const sanitized = fitName(sanitizeName(name));
  return sanitized === "" ? FALLBACK : sanitized;
}

/** The names of one tool's arguments, unique: a name already given becomes `<prefix>_<name>`, then `…_2`, `…_3`. */
export class ArgumentNames {
  private readonly used = new Set<string>();

  claim(wanted: string, prefix = ""): string {
    const base = prefix ? fitName(`${prefix}_${wanted}`) : wanted;
    let name = this.used.has(wanted) ? base : wanted;
    for (let n = 2; this.used.has(name); n++) name = fitName(`${base}_${n}`);
    this.used.add(name);
    return name;
  }
}

/** The message for a parameter or property whose argument is not its name. */
export function renamedMessage({ kind, name, argument }: { kind: string; name: string; argument: string }): string {
  return `${kind} '${name}' is not a name every MCP client accepts for an argument; tools take it as '${argument}' (the request still says '${name}')`;
}
