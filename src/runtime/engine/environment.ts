// Where a call's credentials come from: the environment its tool may read (a registry source's, only what is
// assigned to its namespace), the per-user schemes, and whether its request may carry them to where it goes.

import type { Tool } from "../../catalog/types.js";
import { toolSecrets } from "../../catalog/secret-reads.js";
import type { Environment } from "../credentials/credentials.js";
import type { EngineOptions } from "../engine-options.js";
import type { UserCredentialMap } from "../credentials/user-credentials.js";

type Options = Pick<EngineOptions, "env" | "secretAssignments" | "catalog" | "userCredentials">;

/** Where the tool's variables are read: of a registry source's, only those assigned to its namespace. */
export function environmentOf({ options, tool }: { options: Options; tool: Tool }): Environment {
  const env = options.env ?? process.env;
  const assignments = options.secretAssignments;
  return assignments ? assignments.scope(tool.source).environment(env) : env;
}

export function userSchemes(options: Options): { userCredentials?: UserCredentialMap } {
  const { userCredentials } = options;
  return userCredentials ? { userCredentials } : {};
}

/** Why a registry source's request may not carry its credentials to `url` (not an origin assigned), if so. */
export function offOrigin({ options, tool, url }: { options: Options; tool: Tool; url: string }): string | undefined {
  const assignments = options.secretAssignments;
  if (!assignments) return undefined;
  const scope = assignments.scope(tool.source);
  const { carries } = toolSecrets({ tool, credentials: options.catalog.credentials, assignments });
  return carries && !scope.allowsOrigin(url) ? scope.offOrigin(url) : undefined;
}
