// A form from a tool's input schema: a text box for strings, a number box for numbers, a choice for enums and
// booleans, one line per item for arrays of simple values, JSON text for objects and anything else. Values read
// back into the tool's arguments; an empty field is left out.

import { html } from "./html.js";

/** The schema a property's `$ref` points at in the entry's own `$defs` (tools/list entries are self-contained). */
function resolved(schema, root) {
  const ref = typeof schema?.$ref === "string" ? /^#\/\$defs\/(.+)$/.exec(schema.$ref) : null;
  const found = ref ? root.$defs?.[decodeURIComponent(ref[1]).replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
  return found ?? schema ?? {};
}

function typeOf(schema) {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
}

const SIMPLE = new Set(["string", "number", "integer", "boolean"]);

/** How a property is entered: text, number, choice, lines (array of simple values) or json. */
export function fieldKind(schema, root) {
  const own = resolved(schema, root);
  if (Array.isArray(own.enum)) return { kind: "choice", options: own.enum.map(String), type: typeOf(own) };
  const type = typeOf(own);
  if (type === "boolean") return { kind: "choice", options: ["true", "false"], type };
  if (type === "integer" || type === "number") return { kind: "number", type };
  if (type === "string") return { kind: "text", type };
  const items = type === "array" ? resolved(own.items, root) : undefined;
  if (items && (SIMPLE.has(typeOf(items)) || Array.isArray(items.enum))) return { kind: "lines", type: typeOf(items) };
  return { kind: "json" };
}

function simpleValue(text, type) {
  if (type === "integer" || type === "number") return Number(text);
  if (type === "boolean") return text === "true";
  return text;
}

/** The arguments the fields hold, or `{ error }` naming the field whose JSON does not parse. */
export function argumentsOf(fields, values) {
  const args = {};
  for (const field of fields) {
    const text = values[field.name] ?? "";
    if (text.trim() === "") continue;
    if (field.kind === "json") {
      try {
        args[field.name] = JSON.parse(text);
      } catch {
        return { error: `${field.name}: not JSON text` };
      }
    } else if (field.kind === "lines") {
      args[field.name] = text
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => simpleValue(line, field.type));
    } else {
      args[field.name] = simpleValue(text, field.type);
    }
  }
  return { args };
}

export function fieldsOf(inputSchema) {
  const required = new Set(inputSchema.required ?? []);
  return Object.entries(inputSchema.properties ?? {}).map(([name, schema], index) => ({
    name,
    id: `field-${index}`,
    required: required.has(name),
    description: resolved(schema, inputSchema).description ?? "",
    ...fieldKind(schema, inputSchema),
  }));
}

export function Field({ field, value, onChange }) {
  const change = (event) => onChange(field.name, event.currentTarget.value);
  const control =
    field.kind === "choice"
      ? html`<select id=${field.id} value=${value} onChange=${change}>
          <option value="">(not set)</option>
          ${field.options.map((option) => html`<option value=${option}>${option}</option>`)}
        </select>`
      : field.kind === "lines" || field.kind === "json"
        ? html`<textarea id=${field.id} rows="3" value=${value} onInput=${change}
            placeholder=${field.kind === "lines" ? "one value a line" : "JSON"}></textarea>`
        : html`<input id=${field.id} type=${field.kind === "number" ? "number" : "text"} step="any" value=${value}
            onInput=${change} />`;
  return html`<div class="field">
    <label for=${field.id}>${field.name}${field.required && html`<span class="required" title="required"> *</span>`}
      <span class="kind">${field.kind === "json" ? "JSON" : field.kind === "lines" ? `${field.type}, one a line` : field.type}</span></label>
    ${control}
    ${field.description && html`<p class="hint">${field.description}</p>`}
  </div>`;
}
