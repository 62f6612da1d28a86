// What a code-mode script shows (its value, its logs, its error) is masked with the secrets its own api calls
// carried. Each call's answer was masked as that call's before the script saw it, but a script can undo what masking
// does not know (a fourth layer of escapes, say) and return the secret whole. Only its own calls' secrets: masking
// with other tools' would let a script test guesses at them, as any call could before (issue 24, finding 1).

import { maskValue } from "../secrets/secrets.js";
import type { ScriptOutcome } from "./sandbox/script.js";

export class ScriptSecrets {
  /** Bounded by the run's api calls (100 by default), each carrying a few values. */
  private readonly values = new Set<string>();

  /** Called with each call's secrets (CallContext.carried). */
  readonly add = (secrets: readonly string[]): void => {
    for (const secret of secrets) this.values.add(secret);
  };

  /** The outcome with every secret the run's calls carried masked in every string and key. */
  masked(outcome: ScriptOutcome): ScriptOutcome {
    return this.values.size === 0 ? outcome : maskValue(outcome, [...this.values]);
  }
}
