// `${VAR}` references expanded from an environment: in non-secret places of a source (base URLs) when it is loaded,
// and in a settings file's credential values when they are applied. The catalog itself keeps only variable names.

import { UserError } from "./errors.js";

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
