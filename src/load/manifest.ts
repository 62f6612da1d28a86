// A manifest: several sources in one server, each under its own namespace id, with paths relative to the
// manifest (or URLs relative to a manifest fetched from a URL, which never reads local files).

import { dirname, relative, resolve } from "node:path";
import type { CatalogBuilder, SourceSettings } from "../catalog/builder.js";
import { UserError } from "../catalog/errors.js";
import { isObject } from "../catalog/pointer.js";
import { parseFilters } from "../catalog/filter.js";
import type { InFlightLimits, RateLimit } from "../catalog/types.js";
import { isUrl } from "../catalog/url.js";
import { authEntries } from "./auth.js";
import { confinedProblem } from "./confined.js";
import { namespaceKey } from "./namespaces.js";
import { unassignedVariable } from "./secret-assignment-check.js";
import type { GivenAuth } from "./auth-sources.js";
import type { Parsed } from "./parse.js";
import { problemLine, refuse, schemaProblems } from "./schema-check.js";
import type { LoadOptions, SourceDocument } from "./sources.js";
import { addSource, readDocument, unknownKind } from "./sources.js";
import type { ServerVariableInput } from "./openapi/server-variable-input.js";
import { unusedServerVariables, withSourceValues } from "./server-variables.js";
import { expandVariables } from "../catalog/variables.js";

interface ManifestEntry {
  id: string;
  source: string;
  baseUrl?: string;
  include?: string[];
  exclude?: string[];
  auth?: Record<string, unknown>;
  rateLimit?: RateLimit;
  inFlight?: InFlightLimits;
  serverVariables?: Record<string, string | number>;
}

export async function addManifest({
  builder,
  manifest,
  options,
  auth,
  serverVariables,
}: {
  builder: CatalogBuilder;
  manifest: SourceDocument;
  options: LoadOptions;
  auth: GivenAuth;
  /** The run's values (command line, settings), for every source; a source's own come under them. */
  serverVariables: ServerVariableInput;
}): Promise<void> {
  const { origin } = manifest;
  const file = origin.display;
  const parsed: Parsed = { value: manifest.value, text: manifest.text ?? "" };
  const problems = schemaProblems({ schemaName: "manifest", parsed, file });
  const listed = isObject(parsed.value) && Array.isArray(parsed.value.sources) ? parsed.value.sources : [];
  const ids = new Map<string, { index: number; id: string }>();
  listed.forEach((entry, i) => {
    if (!isObject(entry) || typeof entry.id !== "string") return;
    // The rule of files' namespaces (namespaces.ts): ids that read the same credential variables clash.
    const first = ids.get(namespaceKey(entry.id));
    if (first !== undefined)
      problems.push(
        problemLine({
          parsed,
          file,
          pointer: `/sources/${i}/id`,
          message: `id '${entry.id}' is already used by #/sources/${first.index}${first.id.toLowerCase() === entry.id.toLowerCase() ? "" : ` ('${first.id}': ids differing only in letter case, '-' or '_' read the same credential variables)`}`,
        }),
      );
    else ids.set(namespaceKey(entry.id), { index: i, id: entry.id });
    const confined = options.confined && typeof entry.source === "string" ? options.confined : undefined;
    const problem =
      confined && confinedProblem({ target: locationOf({ origin, source: entry.source as string }), confined });
    if (problem)
      problems.push(
        problemLine({ parsed, file, pointer: `/sources/${i}/source`, message: `'${entry.source}' ${problem}` }),
      );
    const assignments = options.secretAssignments;
    const unassigned =
      assignments && typeof entry.baseUrl === "string"
        ? unassignedVariable({ text: entry.baseUrl, assignments, id: entry.id })
        : undefined;
    if (unassigned) problems.push(problemLine({ parsed, file, pointer: `/sources/${i}/baseUrl`, message: unassigned }));
  });
  refuse({ problems, file, what: "manifest" });
  if (options.baseUrl) {
    throw new UserError({
      code: "E_OPTION",
      message: `${file}: --base-url does not apply to a manifest; set baseUrl on each source instead`,
    });
  }
  const entries = listed as ManifestEntry[];
  auth.check(entries.map((entry) => entry.id));
  const env = options.env ?? process.env;
  for (const [i, entry] of entries.entries()) {
    const place = `${file}#/sources/${i}`;
    const location = locationOf({ origin, source: entry.source });
    const document = await readDocument({
      location,
      display: isUrl(location) ? location : relative(process.cwd(), location),
      options,
    }).catch((error: unknown) => {
      // Trace a source that cannot be read or parsed back to the manifest entry naming it.
      if (error instanceof UserError)
        throw new UserError({ code: error.code, message: `${place}/source: ${error.message}` });
      throw error;
    });
    if (document.kind === "manifest")
      throw new UserError({
        code: "E_INVALID_MANIFEST",
        message: `${place}/source: ${document.origin.display} is itself a manifest; manifests do not nest`,
      });
    if (document.kind === undefined) throw unknownKind(document.origin.display);
    const filters = parseFilters({ include: entry.include ?? [], exclude: entry.exclude ?? [], place });
    builder.remember(filters, `source '${entry.id}'`);
    const own = {
      values: withSourceValues({
        run: serverVariables.values,
        own: entry.serverVariables,
        place: `${place}/serverVariables`,
      }),
      used: new Set<string>(),
    };
    await addSource({
      builder,
      document,
      options,
      serverVariables: own,
      settings: {
        id: entry.id,
        filters,
        ...(entry.baseUrl
          ? { baseUrl: expandVariables({ text: entry.baseUrl, env, place: `${place}/baseUrl` }).replace(/\/+$/, "") }
          : {}),
        ...authOf({ auth, id: entry.id, given: entry.auth, place: { file, pointer: `/sources/${i}/auth` } }),
        ...(entry.rateLimit ? { rateLimit: entry.rateLimit } : {}),
        ...(entry.inFlight ? { inFlight: entry.inFlight } : {}),
      },
    });
    for (const name of own.used) serverVariables.used.add(name);
    builder.diagnostics.push(
      ...unusedServerVariables({
        input: own,
        only: (name) => !serverVariables.values.has(name),
        file: document.origin.display,
      }),
    );
  }
}

/** Relative to the manifest: a path beside a local one, a URL beside a fetched one (never a local file). */
function locationOf({ origin, source }: { origin: SourceDocument["origin"]; source: string }): string {
  if (origin.remote) return new URL(source, origin.location).href;
  return isUrl(source) ? source : resolve(dirname(origin.location), source);
}

/** The source's auth entries: the manifest's, with what settings and the command line give. */
function authOf({
  auth,
  id,
  given,
  place,
}: {
  auth: GivenAuth;
  id: string;
  given?: Record<string, unknown> | undefined;
  place: { file: string; pointer: string };
}): Pick<SourceSettings, "auth" | "authPlace"> {
  const entries = auth.forSource(id, given ? authEntries(given, place) : undefined);
  return entries ? { auth: entries, authPlace: place } : {};
}
