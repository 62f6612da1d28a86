// A generated server's command line and environment, read into its settings with the reader `openapi-mcp serve`
// uses (option-values.ts): the same choices, whole numbers, ports, policy entries and auth combinations, refused in
// the same words. A mistake is a UserError (code E_OPTION) naming the option, the environment variable or the
// settings key the value came from, never a stack trace.

import { parseArgs } from "node:util";
import { UserError } from "../catalog/errors.js";
import type { Settings } from "../catalog/settings.js";
import type { ServeMode } from "../runtime/modes/dynamic.js";
import { DEFAULT_HOST, DEFAULT_PORT, type RuntimeOption } from "../runtime/options.js";
import { nearMatches } from "../runtime/approvals/policy.js";
import { SERVER_OPTIONS } from "./options.js";
import { choiceList, environmentValues, fromSettings, type OptionValues, readOptionValues } from "./option-values.js";
import { type Given, optionError } from "./option-given.js";

/** The options a generated server runs with: what was given, and the table's defaults for the rest it serves with. */
export interface ServerSettings extends OptionValues {
  transport: "stdio" | "http";
  host: string;
  port: number;
  stateless: boolean;
  mode: ServeMode;
  allowInsecureHttp: boolean;
  allowUnauthenticated: boolean;
}

/** Settings that shape the catalog: built into a generated server, so they apply when it is generated. */
const GENERATION_ONLY: Array<keyof Settings> = ["serverVariables", "auth"];

/**
 * `{ help: true }` for -h/--help; otherwise the settings, or a UserError saying what is wrong and where. With `file`
 * (the settings file `config` names, once read), its options apply where the command line and the environment
 * say nothing.
 */
export function readServerCommandLine({
  args,
  env,
  file,
}: {
  args: string[];
  env: Record<string, string | undefined>;
  file?: Settings;
}): { help: true } | { settings: ServerSettings } {
  const parsed = readArgs(args);
  if (parsed === "help") return { help: true };
  if (file) refuseGenerationOnly(file);
  const values = readOptionValues(
    (option) =>
      parsed.get(option.name) ??
      fromEnvironment({ option, env }) ??
      (file ? fromSettings({ option, file }) : undefined),
  );
  return {
    settings: {
      ...values,
      transport: values.transport ?? "stdio",
      host: values.host ?? DEFAULT_HOST,
      port: values.port ?? DEFAULT_PORT,
      stateless: values.stateless === true,
      mode: values.mode ?? "tools",
      allowInsecureHttp: values.allowInsecureHttp === true,
      allowUnauthenticated: values.allowUnauthenticated === true,
    },
  };
}

function fromEnvironment({
  option,
  env,
}: {
  option: RuntimeOption;
  env: Record<string, string | undefined>;
}): Given | undefined {
  const text = option.env === undefined ? undefined : env[option.env];
  // An empty variable (`MCP_PORT=` in an env file) counts as unset.
  if (text === undefined || text === "") return undefined;
  const values = environmentValues({ option, text });
  return { values, source: option.env! };
}

function refuseGenerationOnly(file: Settings): void {
  const found = GENERATION_ONLY.filter((key) => file[key] !== undefined);
  if (found.length === 0) return;
  throw new UserError({
    code: "E_SETTINGS",
    message: `${file.file}#/${found[0]}: ${found.join(" and ")} shape the tools, which are built into this server: give them when generating it (openapi-mcp generate … --auth, --server-var); credential values go under credentials`,
  });
}

/** The command line's options by name, each with its values in order; "help" when help was asked for. */
function readArgs(args: string[]): Map<string, Given> | "help" {
  const config = Object.fromEntries(
    SERVER_OPTIONS.map((o) => [
      o.name,
      { type: o.kind === "flag" ? ("boolean" as const) : ("string" as const), multiple: true },
    ]),
  );
  const { tokens } = parseArgs({
    args,
    options: { ...config, help: { type: "boolean", short: "h" } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((t) => t.kind === "option" && t.name === "help")) return "help";
  const found = new Map<string, Given>();
  for (const token of tokens) {
    if (token.kind === "positional")
      throw optionError(`unexpected argument '${token.value}': this server takes options only`);
    if (token.kind !== "option") continue;
    const option = SERVER_OPTIONS.find((o) => o.name === token.name);
    if (!option) throw optionError(unknownOption(token.rawName));
    const value = option.kind === "flag" ? flagValue(token) : textValue({ token, option });
    const entry = found.get(option.name) ?? { values: [], source: `--${option.name}` };
    entry.values.push(value);
    found.set(option.name, entry);
  }
  return found;
}

function flagValue(token: { rawName: string; value?: string | undefined }): string {
  if (token.value !== undefined)
    throw optionError(`${token.rawName} takes no value (it is a flag), not '${token.value}'`);
  return "true";
}

function textValue({
  token,
  option,
}: {
  token: { rawName: string; value?: string | undefined; inlineValue?: boolean | undefined };
  option: RuntimeOption;
}): string {
  // `--port --stateless`: the next option was taken for the value.
  if (token.value === undefined || (!token.inlineValue && token.value.startsWith("--"))) {
    throw optionError(
      `--${option.name} needs a value${typeof option.kind === "object" ? `: ${choiceList(option.kind.choices)}` : ""}`,
    );
  }
  return token.value;
}

function unknownOption(raw: string): string {
  const near = nearMatches(raw.replace(/^-+/, ""), [...SERVER_OPTIONS.map((o) => o.name), "help"]);
  return `unknown option '${raw}'${near.length > 0 ? `; did you mean ${near.map((n) => `--${n}`).join(", ")}?` : ""}`;
}
