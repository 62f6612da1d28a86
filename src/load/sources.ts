// One source (an OpenAPI document or an action definition) into the catalog under construction.

import { addActionSource } from "../catalog/actions.js";
import type { CatalogBuilder, SourceSettings } from "../catalog/builder.js";
import type { ApiDocument } from "../catalog/document.js";
import { UserError } from "../catalog/errors.js";
import { addOpenApiSource } from "../catalog/openapi-tools.js";
import { isObject } from "../catalog/pointer.js";
import type { Diagnostic } from "../catalog/types.js";
import { readActionDefinition } from "./actions.js";
import type { SecretAssignments } from "../catalog/secret-assignments.js";
import type { Confinement } from "./confined.js";
import { bundleExternalRefs, mayHaveExternalRefs, refPolicy } from "./external-refs.js";
import { type CatalogSource, documentText } from "./in-memory.js";
import { locatePointers } from "./locate.js";
import { conformanceErrors } from "./openapi/conformance.js";
import { normalizeOpenApi, openApiVersion } from "./openapi/index.js";
import type { ServerVariableInput } from "./openapi/server-variable-input.js";
import { parseBytes } from "./parse.js";
import { assignmentDiagnostics } from "./secret-assignment-check.js";
import type { SourceOrigin } from "./source-text.js";
import { readSource } from "./read-source.js";
import type { SourceKind } from "./source-kind.js";
import type { Environment } from "../catalog/variables.js";

export interface LoadOptions {
  /** Upstream base URL instead of the document's servers (single sources only). */
  baseUrl?: string;
  include?: string[];
  exclude?: string[];
  /** Where `include` and `exclude` were written, for messages: "command line" unless said otherwise. */
  filterPlaces?: { include?: string; exclude?: string };
  /** Directories or URL prefixes external `$ref`s may also read. */
  allowRefs?: string[];
  allowInsecureHttp?: boolean;
  /**
   * `--auth`: a scheme every tool of a source sends, replacing what its document declares: `bearer:VAR`,
   * `header:NAME:VAR`, `query:NAME:VAR`, `cookie:NAME:VAR` or `basic:USERVAR:PASSVAR`, after `source-id=` when
   * there are several sources or a manifest.
   */
  upstreamAuth?: string[];
  /** A settings file's `auth` (checked against its schema): scheme name, `<source-id>.<scheme>` for several sources. */
  settingsAuth?: { file: string; auth: Record<string, unknown> };
  /** Where `${VAR}` references are looked up; the process environment by default. */
  env?: Environment;
  /** Server variable values (`--server-var name=value`), over the documents' defaults. */
  serverVariables?: Record<string, string>;
  /** Where each of `serverVariables` was set, for messages: `--server-var name=value` unless said otherwise. */
  serverVariablePlaces?: Record<string, string>;
  /**
   * For `validate`: also check OpenAPI documents against the official schemas (their violations are errors), and
   * give every diagnostic its line and column (the text of each source is kept until it is built).
   */
  checkConformance?: boolean;
  /** Told what is happening while a large document loads (the CLI writes it to stderr). */
  progress?: (line: string) => void;
  /**
   * A registry's sources: each is namespaced after its file even when it is the only one, so adding a second
   * source to the directory renames no tool of the first.
   */
  namespaceEach?: boolean;
  /**
   * A registry's sources and the console's drafts (written by console admins): files are read only inside the
   * registry directory (none without one), never a URL, whatever `allowRefs` says; external `$ref`s and a
   * manifest's sources alike (confined.ts).
   */
  confined?: Confinement;
  /**
   * A registry's sources and the console's drafts: each reads only the secrets assigned to its namespace and sends
   * its credentials only to the origins assigned with them (settings `registrySecrets`); what else it would read
   * or send is an error at its place.
   */
  secretAssignments?: SecretAssignments;
}

/** Documents this large take a second or more: their loading is narrated. */
const NARRATED_BYTES = 4 * 1024 * 1024;

/** A source's kind is told by its content. */
export function detectKind(value: unknown): SourceKind | undefined {
  if (!isObject(value)) return undefined;
  if (value.openapi !== undefined || value.swagger !== undefined) return "openapi";
  if (value.actions !== undefined) return "actions";
  if (value.sources !== undefined) return "manifest";
  return undefined;
}

export function unknownKind(file: string): UserError {
  return new UserError({
    code: "E_SOURCE_KIND",
    message: `${file}: not an OpenAPI document, action definition or manifest (expected a top-level 'openapi', 'swagger', 'actions' or 'sources' key)`,
  });
}

/** A read and parsed source. The text of an OpenAPI document is kept only for `validate` (it can be 50 MB); that
 * of an action definition or manifest always is, for pointing at lines and columns. */
export interface SourceDocument {
  origin: SourceOrigin;
  value: unknown;
  kind: SourceKind | undefined;
  text?: string;
}

export async function readDocument({
  location,
  display,
  options,
}: {
  location: CatalogSource;
  display?: string;
  options: LoadOptions;
}): Promise<SourceDocument> {
  const read =
    typeof location === "string"
      ? await readSource(location, { ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}) })
      : documentText(location);
  const file = display ?? read.display;
  const narrate = read.bytes.length >= NARRATED_BYTES ? options.progress : undefined;
  narrate?.(`${file}: ${(read.bytes.length / 2 ** 20).toFixed(1)} MB read, parsing…`);
  const { value, text } = parseBytes({ bytes: read.bytes, file });
  const kind = detectKind(value);
  const origin: SourceOrigin = {
    location: read.location,
    remote: read.remote,
    display: file,
    ...(narrate ? { narrate } : {}),
  };
  if (kind === "openapi") {
    return {
      origin: { ...origin, mayHaveExternalRefs: mayHaveExternalRefs(read.bytes) },
      value,
      kind,
      ...(options.checkConformance ? { text: text() } : {}),
    };
  }
  return { origin, value, kind, text: text() };
}

/** One source to add to the catalog under construction, with the settings it is added under. */
interface SourceToAdd {
  builder: CatalogBuilder;
  document: SourceDocument;
  settings: SourceSettings;
  options: LoadOptions;
  /** Values for the document's server variables; the names its chosen servers use are added to `used`. */
  serverVariables: ServerVariableInput;
}

export async function addSource({ builder, document, settings, options, serverVariables }: SourceToAdd): Promise<void> {
  const { origin } = document;
  const before = builder.diagnostics.length;
  const toolsBefore = builder.tools.length;
  await addParsedSource({ builder, document, settings, options, serverVariables });
  const assignments = options.secretAssignments;
  if (assignments && document.kind !== undefined)
    builder.diagnostics.push(
      ...assignmentDiagnostics({
        tools: builder.tools.slice(toolsBefore),
        credentials: builder.credentials,
        id: settings.id,
        kind: document.kind,
        value: document.value,
        file: origin.display,
        assignments,
      }),
    );
  if (options.checkConformance && document.text !== undefined)
    locateDiagnostics({ diagnostics: builder.diagnostics.slice(before), file: origin.display, text: document.text });
}

async function addParsedSource({ builder, document, settings, options, serverVariables }: SourceToAdd): Promise<void> {
  const { origin, value, kind } = document;
  if (kind === "openapi") {
    const api = await loadOpenApi({ value: value as Record<string, unknown>, origin, options, serverVariables });
    const started = performance.now();
    origin.narrate?.(
      `${origin.display}: building tools for ${api.operations.length.toLocaleString("en-US")} operations…`,
    );
    addOpenApiSource(builder, { ...settings, kind: "openapi", document: api });
    origin.narrate?.(`${origin.display}: tools built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else if (kind === "actions") {
    const definition = readActionDefinition({
      parsed: { value, text: document.text ?? "" },
      file: origin.display,
      env: options.env ?? process.env,
      ...(options.secretAssignments ? { assignments: { of: options.secretAssignments, id: settings.id } } : {}),
    });
    addActionSource(builder, { ...settings, kind: "actions", file: origin.display, definition });
  } else {
    throw unknownKind(origin.display);
  }
}

async function loadOpenApi({
  value,
  origin,
  options,
  serverVariables,
}: {
  value: Record<string, unknown>;
  origin: SourceOrigin;
  options: LoadOptions;
  serverVariables: ServerVariableInput;
}): Promise<ApiDocument> {
  // Refuse an unsupported version before any external file is read.
  openApiVersion({ root: value, file: origin.display });
  const policy = refPolicy({
    source: origin,
    ...(options.allowRefs ? { allowRefs: options.allowRefs } : {}),
    ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
    ...(options.confined ? { confined: options.confined } : {}),
  });
  const root = (await bundleExternalRefs({ value, source: origin, policy })) as Record<string, unknown>;
  const document = normalizeOpenApi({ root, file: origin.display, location: origin.location, serverVariables });
  if (options.checkConformance)
    document.diagnostics.push(...conformanceErrors({ root, file: origin.display, format: document.format }));
  return document;
}

/** Line and column for each diagnostic about this file, found in one pass over its text. */
function locateDiagnostics({
  diagnostics,
  file,
  text,
}: {
  diagnostics: Diagnostic[];
  file: string;
  text: string;
}): void {
  const here = diagnostics.filter((d) => d.file === file && d.pointer !== undefined);
  const places = locatePointers({ text, pointers: here.map((d) => d.pointer!) });
  for (const d of here) {
    const place = places.get(d.pointer!);
    if (place) Object.assign(d, place);
  }
}
