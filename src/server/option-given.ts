// An option as it was given (its values and where: `--port`, `MCP_PORT`, a settings key), and the error that names
// it when it cannot be used: shared by the options' reader (option-values.ts) and the endpoint auth's (option-auth.ts).

import { UserError } from "../catalog/errors.js";

/** An option's values, in order, and where they came from (`--port`, `MCP_PORT`, `settings.json#/maxSessions`). */
export interface Given {
  values: string[];
  source: string;
}

export function optionError(message: string): UserError {
  return new UserError({ code: "E_OPTION", message });
}
