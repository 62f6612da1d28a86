// At check time, what a registry source or console draft would read or send that its namespace's assignment
// (settings `registrySecrets`) does not allow, as errors at their place in the file: the scheme or static header
// reading an unassigned variable or secret, a token URL or server its credentials may not go to. `validate`'s
// line and column are added by the caller, as for every diagnostic. The engine refuses the same at call time.

import { isObject, joinPointer } from "../catalog/pointer.js";
import type { SecretAssignments } from "../catalog/secret-assignments.js";
import { toolSecrets, variablesIn } from "../catalog/secret-reads.js";
import type { CredentialScheme, Diagnostic, Tool } from "../catalog/types.js";
import type { SourceKind } from "./source-kind.js";

interface Checked {
  /** This source's tools, and the catalog's credentials they name. */
  tools: Tool[];
  credentials: Record<string, CredentialScheme>;
  /** The source's namespace, kind, parsed value and file, for places. */
  id: string;
  kind: SourceKind;
  value: unknown;
  file: string;
  assignments: SecretAssignments;
}

export function assignmentDiagnostics(checked: Checked): Diagnostic[] {
  const { tools, credentials, id, file, assignments } = checked;
  const scope = assignments.scope(id);
  const found = new Map<string, Diagnostic>();
  const add = (pointer: string, message: string): void => {
    const key = `${pointer}\n${message}`;
    if (!found.has(key)) found.set(key, { severity: "error", code: "secret-not-assigned", message, file, pointer });
  };
  for (const tool of tools) {
    const { reads, tokenUrls, carries } = toolSecrets({ tool, credentials, assignments });
    for (const { reference, from } of reads) {
      if (scope.allows(reference)) continue;
      if ("header" in from)
        add(
          headerPointer({ checked, tool, header: from.header }),
          `static header ${from.header}: ${scope.unassigned(reference)}`,
        );
      else
        add(
          schemePointer({ checked, scheme: from.scheme, field: from.field }),
          `security scheme '${schemeName(from.scheme, id)}' (${from.field}): ${scope.unassigned(reference)}`,
        );
    }
    for (const { scheme, url } of tokenUrls)
      if (!scope.allowsOrigin(url))
        add(
          schemePointer({ checked, scheme, field: "tokenUrl" }),
          `security scheme '${schemeName(scheme, id)}' (tokenUrl): ${scope.offOrigin(url)}`,
        );
    if (carries && tool.operation.serverUrl !== "" && !scope.allowsOrigin(tool.operation.serverUrl)) {
      const pointer = serverPointer({ checked, tool });
      add(
        pointer,
        `${checked.kind === "actions" ? "baseUrl" : "server"}: ${scope.offOrigin(tool.operation.serverUrl)}`,
      );
    }
  }
  return [...found.values()];
}

/** The first `${VAR}` of a text the scope does not allow, as its refusal (a base URL expanded at load). */
export function unassignedVariable({
  text,
  assignments,
  id,
}: {
  text: string;
  assignments: SecretAssignments;
  id: string;
}): string | undefined {
  const scope = assignments.scope(id);
  const name = variablesIn(text).find((variable) => !scope.allows(variable));
  return name === undefined ? undefined : scope.unassigned(name);
}

function schemeName(schemeId: string, id: string): string {
  return id && schemeId.startsWith(`${id}.`) ? schemeId.slice(id.length + 1) : schemeId;
}

/** Where a scheme's field is written: an action definition's `auth`, an OpenAPI document's scheme; else the top. */
function schemePointer({ checked, scheme, field }: { checked: Checked; scheme: string; field: string }): string {
  const { kind, value, id } = checked;
  const root = isObject(value) ? value : {};
  if (kind === "actions") {
    const auth = isObject(root.auth) ? root.auth : undefined;
    return auth ? (Object.hasOwn(auth, field) ? `/auth/${field}` : "/auth") : "";
  }
  const name = schemeName(scheme, id);
  const components =
    isObject(root.components) && isObject(root.components.securitySchemes)
      ? root.components.securitySchemes
      : undefined;
  if (components && Object.hasOwn(components, name)) return joinPointer("/components/securitySchemes", name);
  const definitions = isObject(root.securityDefinitions) ? root.securityDefinitions : undefined;
  return definitions && Object.hasOwn(definitions, name) ? joinPointer("/securityDefinitions", name) : "";
}

function headerPointer({ checked, tool, header }: { checked: Checked; tool: Tool; header: string }): string {
  const root = isObject(checked.value) ? checked.value : {};
  const index = /^\/actions\/(\d+)$/.exec(tool.origin.pointer)?.[1];
  const actions = Array.isArray(root.actions) ? root.actions : [];
  const action = index !== undefined ? actions[Number(index)] : undefined;
  if (isObject(action) && isObject(action.headers) && Object.hasOwn(action.headers, header))
    return joinPointer(tool.origin.pointer, "headers", header);
  return joinPointer("/headers", header);
}

function serverPointer({ checked, tool }: { checked: Checked; tool: Tool }): string {
  const root = isObject(checked.value) ? checked.value : {};
  if (checked.kind === "actions") return "/baseUrl";
  return "servers" in root ? "/servers" : tool.origin.pointer;
}
