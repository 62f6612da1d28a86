// Loading: a source (an OpenAPI document, an action definition or a manifest of several) from a file or an
// https:// URL into one catalog.

import { CatalogBuilder } from "../catalog/builder.js";
import { UserError } from "../catalog/errors.js";
import { parseFilters } from "../catalog/filter.js";
import type { Catalog } from "../catalog/types.js";
import { GivenAuth } from "./auth-sources.js";
import { type CatalogSource, sourceName } from "./in-memory.js";
import { addManifest } from "./manifest.js";
import { namespaces } from "./namespaces.js";
import { givenServerVariables, unusedServerVariables } from "./server-variables.js";
import type { LoadOptions } from "./sources.js";
import { addSource, readDocument, unknownKind } from "./sources.js";

/**
 * Loads one source, or several: each of several is served under a namespace named after its file
 * (`cars.openapi.yaml` → `cars__…`), as a manifest would list them.
 */
export async function loadCatalog(
  source: CatalogSource | CatalogSource[],
  options: LoadOptions = {},
): Promise<Catalog> {
  const sources = Array.isArray(source) ? source : [source];
  const filters = parseFilters({ ...options, place: "command line" });
  const builder = new CatalogBuilder(filters);
  for (const which of ["include", "exclude"] as const) {
    const place = options.filterPlaces?.[which];
    if (place) builder.remember({ include: [], exclude: [], [which]: filters[which] }, place);
  }
  if (sources.length > 1 && options.baseUrl) {
    throw new UserError({
      code: "E_OPTION",
      message: "--base-url applies to one source; for several, use a manifest with baseUrl per source",
    });
  }
  const ids = namespaces(sources.map(sourceName), options.namespaceEach === true);
  const auth = givenAuth(options);
  if (sources.length > 1) auth.check(ids);
  const serverVariables = {
    values: givenServerVariables({ values: options.serverVariables, places: options.serverVariablePlaces }),
    used: new Set<string>(),
  };
  for (const [i, location] of sources.entries()) {
    const document = await readDocument({ location, display: sourceName(location), options });
    if (document.kind === undefined) throw unknownKind(document.origin.display);
    if (document.kind === "manifest") {
      if (sources.length > 1)
        throw new UserError({
          code: "E_OPTION",
          message: `${sourceName(location)}: a manifest is served on its own, not beside other sources`,
        });
      await addManifest({ builder, manifest: document, options, auth, serverVariables });
    } else {
      if (sources.length === 1) auth.check(ids);
      const baseUrl = options.baseUrl ? { baseUrl: options.baseUrl.replace(/\/+$/, "") } : {};
      const entries = auth.forSource(ids[i]!);
      await addSource({
        builder,
        document,
        options,
        settings: { id: ids[i]!, ...baseUrl, ...(entries ? { auth: entries } : {}) },
        serverVariables,
      });
    }
  }
  builder.diagnostics.push(...unusedServerVariables({ input: serverVariables }));
  return builder.finish();
}

function givenAuth(options: LoadOptions): GivenAuth {
  return new GivenAuth({
    env: options.env ?? process.env,
    ...(options.upstreamAuth ? { options: options.upstreamAuth } : {}),
    ...(options.settingsAuth ? { settings: options.settingsAuth } : {}),
  });
}
