// The options table's values, checked: what `openapi-mcp serve` and a generated server were given (on the command
// line, in the environment or in a settings file) read into the options they serve with. One reader, so both take
// the same values and refuse the same ones with the same words: a UserError (E_OPTION) naming the option, the
// variable or the settings key the value came from.

import type { UserError } from "../catalog/errors.js";
import type { Settings } from "../catalog/settings.js";
import type { ServeMode } from "../runtime/modes/dynamic.js";
import type { ScriptSettings } from "../runtime/modes/code-turn.js";
import { type OptionKind, RUNTIME_OPTIONS, type RuntimeOption, type RuntimeSettings } from "../runtime/options.js";
import type { AuthConfig } from "./auth-config.js";
import type { RequestLimits } from "./bodies.js";
import { endpointAuth } from "./option-auth.js";
import { type Given, optionError } from "./option-given.js";
import type { SessionLimits } from "./sessions.js";

/** What was given for an option, wherever it was given; undefined when nowhere. */
export type GivenOption = (option: RuntimeOption) => Given | undefined;

/** The options given, checked; nothing defaulted (a settings file or the engine may still supply a value). */
export interface OptionValues
  extends Pick<
    RuntimeSettings,
    | "timeoutMs"
    | "maxResponseBytes"
    | "outputValidation"
    | "responseText"
    | "markResponseText"
    | "state"
    | "stateFallback"
    | "stateFail"
    | "auditLog"
    | "requireCredentials"
    | "allowInsecureHttp"
    | "allowReadableSecretFiles"
    | "stateSecrets"
  > {
  /** The settings file to read (`--config`). */
  config?: string;
  transport?: "stdio" | "http";
  host?: string;
  port?: number;
  stateless?: boolean;
  mode?: ServeMode;
  baseUrl?: string;
  include: string[];
  exclude: string[];
  policies: string[];
  auth?: AuthConfig;
  allowUnauthenticated?: boolean;
  /** `serve` only: the admin console at /console, and the variable holding its admin token. */
  console?: boolean;
  consoleTokenEnv?: string;
  sessions: SessionLimits;
  requests: RequestLimits;
  /** Code mode's limits on a script run (--script-timeout and the rest): only those given. */
  script: Partial<ScriptSettings>;
}

const DECISION = /^[^=]*[^=\s][^=]*=\s*(allow|approve|deny)\s*$/i;

export function readOptionValues(given: GivenOption): OptionValues {
  const values: OptionValues = { include: [], exclude: [], policies: [], sessions: {}, requests: {}, script: {} };
  for (const option of RUNTIME_OPTIONS) {
    const found = given(option);
    if (option.key === undefined || found === undefined) continue;
    if (option.name === "policy") refuseBadPolicies(found);
    const value =
      option.kind === "list"
        ? found.values
        : checkValue({ kind: option.kind, value: found.values.at(-1), source: found.source });
    const read = option.seconds ? (value as number) * 1000 : value;
    const target = (option.in ? values[option.in] : values) as Record<string, unknown>;
    target[option.key] = read;
  }
  const auth = endpointAuth({
    given: (name) => given(RUNTIME_OPTIONS.find((o) => o.name === name)!),
    transport: values.transport ?? "stdio",
    allowInsecureHttp: values.allowInsecureHttp === true,
  });
  if (auth) values.auth = auth;
  return values;
}

/**
 * A settings file's value for an option, as the option would be given (checked the same way). Not the policies:
 * the file's come first and the command line's after them (runtime/settings.ts), rather than instead.
 */
export function fromSettings({ option, file }: { option: RuntimeOption; file: Settings }): Given | undefined {
  const value =
    option.setting === undefined || option.name === "policy"
      ? undefined
      : (file as unknown as Record<string, unknown>)[option.setting];
  if (value === undefined) return undefined;
  const values = Array.isArray(value) ? value.map(String) : [String(value)];
  return { values, source: `${file.file}#/${option.setting}` };
}

function refuseBadPolicies(found: Given): void {
  for (const entry of found.values.flatMap((v) => v.split(","))) {
    if (!DECISION.test(entry))
      throw optionError(
        `${found.source}: '${entry.trim()}' is not <target>=<allow|approve|deny> (target: read, write, destructive or a tool name)`,
      );
  }
}

/** A value checked against its kind: a number for numbers, a boolean for flags, the text otherwise. */
export function checkValue({
  kind,
  value = "",
  source,
}: {
  kind: OptionKind;
  value?: string | undefined;
  source: string;
}): string | number | boolean {
  const wrong = (expected: string, hint = ""): UserError =>
    optionError(`${source} must be ${expected}, not '${value}'${hint}`);
  if (kind === "flag") {
    if (value === "true" || value === "false") return value === "true";
    throw wrong("true or false");
  }
  if (kind === "positive" || kind === "port") {
    const number = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (kind === "positive" && !(number > 0)) throw wrong("a whole number greater than 0");
    if (kind === "port" && !(number >= 0 && number <= 65_535)) throw wrong("a port number (0-65535)");
    return number;
  }
  if (typeof kind === "object" && !kind.choices.includes(value)) {
    // Values are matched exactly; say so when only the case is off.
    const hint = kind.choices.includes(value.toLowerCase()) ? " (the values are lower case)" : "";
    throw wrong(choiceList(kind.choices), hint);
  }
  return value;
}

export function choiceList(list: readonly string[]): string {
  return list.length === 2 ? `${list[0]} or ${list[1]}` : `one of ${list.join(", ")}`;
}

/** A variable's text as an option's values: a list is comma-separated, anything else is one value. */
export function environmentValues({ option, text }: { option: RuntimeOption; text: string }): string[] {
  return option.kind === "list"
    ? text
        .split(",")
        .map((value) => value.trim())
        .filter(Boolean)
    : [text];
}
