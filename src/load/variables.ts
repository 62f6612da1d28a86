// `${VAR}` references in non-secret places (base URLs) are expanded when the source is loaded. Secret values are
// never expanded here: the catalog keeps only their variable names.

import { UserError } from "../catalog/errors.js";

export type Environment = Record<string, string | undefined>;

export function expandVariables({ text, env, place }: { text: string; env: Environment; place: string }): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === "") {
      throw new UserError({ code: "E_ENV", message: `${place}: environment variable ${name} is not set` });
    }
    return value;
  });
}
