// The settings file's keys for the table's options, as JSON Schema: schemas/settings.schema.json holds exactly these
// (scripts/settings-schema.mjs writes them; test/runtime/option-schema.test.ts checks the file), so a settings key
// accepts what its option accepts.

import { optionHelp, RUNTIME_OPTIONS, type RuntimeOption } from "./options.js";

export function settingsSchemaProperties(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    RUNTIME_OPTIONS.flatMap((option) =>
      option.setting ? [[option.setting, { ...kindSchema(option), description: describe(option) }]] : [],
    ),
  );
}

function kindSchema(option: RuntimeOption): Record<string, unknown> {
  if (option.schema) return option.schema;
  const { kind } = option;
  if (typeof kind === "object") return { enum: [...kind.choices] };
  switch (kind) {
    case "flag":
      return { type: "boolean" };
    case "positive":
      return { type: "integer", minimum: 1 };
    case "port":
      return { type: "integer", minimum: 0, maximum: 65_535 };
    case "list":
      return { type: "array", items: { type: "string", minLength: 1 } };
    default:
      return { type: "string", minLength: 1 };
  }
}

function describe(option: RuntimeOption): string {
  const unit =
    option.value && option.value !== "n" && option.kind === "positive"
      ? ` In ${option.value === "ms" ? "milliseconds" : option.value}.`
      : "";
  return `--${option.name}: ${optionHelp(option)}.${unit}`;
}
