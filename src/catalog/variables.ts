// `${VAR}` references expanded from an environment: in non-secret places of a source (base URLs) when it is loaded,
// and in a settings file's credential values when they are applied. The catalog itself keeps only variable names.

import { UserError } from "./errors.js";

export type Environment = Record<string, string | undefined>;

/**
 * `${file:…}` and `${cmd:…}` are read when a call needs them (runtime/secrets/secret-sources.ts): where a value is expanded
 * once (base URLs, per-user modes' client secrets) they are refused rather than sent as written, unless `keep`.
 */
export function expandVariables({
  text,
  env,
  place,
  keepSecretReferences = false,
}: {
  text: string;
  env: Environment;
  place: string;
  keepSecretReferences?: boolean;
}): string {
  const reference = /\$\{(file|cmd):[^}]+\}/.exec(text);
  if (reference && !keepSecretReferences) {
    throw new UserError({
      code: "E_ENV",
      message: `${place}: ${reference[0]} is not read here; it stands in credential values, auth entries, static headers and --auth`,
    });
  }
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === "") {
      throw new UserError({ code: "E_ENV", message: `${place}: environment variable ${name} is not set` });
    }
    return value;
  });
}
