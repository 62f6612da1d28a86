// The command line's options from the table in runtime/options.ts: the flags `serve` and `call` declare, and the
// values given, read by the reader generated servers use (server/option-values.ts), so both accept, default and
// refuse alike. Commander only collects the text; the table's reader checks it.

import { type Command, Option } from "commander";
import type { EngineSetupOptions } from "../app/setup.js";
import { UserError } from "../catalog/errors.js";
import { defined } from "../runtime/defined.js";
import { optionFlags, optionHelp, RUNTIME_OPTIONS, type RuntimeOption } from "../runtime/options.js";
import {
  checkValue,
  environmentValues,
  type GivenOption,
  type OptionValues,
  readOptionValues,
} from "../server/option-values.js";

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The table's option as commander declares it: no defaults (a settings file may give the value), no checks. */
export function commanderOption(option: RuntimeOption): Option {
  const declared = new Option(optionFlags(option), optionHelp(option));
  if (option.cliEnv) declared.env(option.cliEnv);
  // No default for lists either: one left out may come from the settings file.
  return option.kind === "list" ? declared.argParser(collect) : declared;
}

/** Adds the table's options that `which` says the command takes. */
export function addTableOptions({
  command,
  which,
}: {
  command: Command;
  which: (option: RuntimeOption) => boolean;
}): Command {
  for (const option of RUNTIME_OPTIONS) if (which(option)) command.addOption(commanderOption(option));
  return command;
}

/** The table's options as the command was given them, checked as a generated server checks them. */
export function tableValues(command: Command): OptionValues {
  return readOptionValues(givenTo(command));
}

function givenTo(command: Command): GivenOption {
  return (option) => {
    const key = commanderOption(option).attributeName();
    // A flag counts only when given: a negated one (`--no-cache`) holds `true` until it is.
    if (option.kind === "flag")
      return command.getOptionValueSource(key) === "cli" ? { values: ["true"], source: `--${option.name}` } : undefined;
    const value: unknown = command.getOptionValue(key);
    if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    if (command.getOptionValueSource(key) === "env" && option.cliEnv)
      return fromCliEnvironment({ option, text: values[0]! });
    return { values, source: `--${option.name}` };
  };
}

/** PORT is checked as --port is; its refusal keeps the words `serve` has always used for it. */
function fromCliEnvironment({ option, text }: { option: RuntimeOption; text: string }): {
  values: string[];
  source: string;
} {
  try {
    checkValue({ kind: option.kind, value: text, source: option.cliEnv! });
  } catch (error) {
    const reason = (error as Error).message.replace(`${option.cliEnv} `, "").replace(/, not '.*'$/s, "");
    throw new UserError({
      code: "E_OPTION",
      message: `option '${optionFlags(option)}' value '${text}' from env '${option.cliEnv}' is invalid: ${reason}`,
    });
  }
  // Comma-separated, as a generated server reads a list from its variable.
  const values = environmentValues({ option, text });
  return { values, source: option.cliEnv! };
}

/** The engine's settings as given (the settings file and the engine supply the rest), and the settings file. */
export function engineSettings(values: OptionValues): EngineSetupOptions {
  return defined({
    config: values.config,
    timeoutMs: values.timeoutMs,
    maxResponseBytes: values.maxResponseBytes,
    outputValidation: values.outputValidation,
    responseText: values.responseText,
    markResponseText: values.markResponseText,
    state: values.state,
    stateFallback: values.stateFallback,
    stateFail: values.stateFail,
    auditLog: values.auditLog,
    requireCredentials: values.requireCredentials,
    allowReadableSecretFiles: values.allowReadableSecretFiles,
    policies: values.policies,
    stateSecrets: values.stateSecrets,
  });
}
