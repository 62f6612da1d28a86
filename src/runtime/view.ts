// A catalog narrowed at start-up: a generated server has no loader, so `--include`/`--exclude` and `--base-url`
// apply here, with the same filter language as `serve`.

import { UserError } from "../catalog/errors.js";
import { parseFilters, toolPasses } from "../catalog/filter.js";
import type { Catalog } from "../catalog/types.js";

export function narrowCatalog({
  catalog,
  include = [],
  exclude = [],
  baseUrl,
}: {
  catalog: Catalog;
  include?: string[];
  exclude?: string[];
  baseUrl?: string;
}): Catalog {
  const filters = parseFilters({ include, exclude, place: "command line" });
  const tools = catalog.tools.filter((tool) => toolPasses(tool, filters));
  if (baseUrl === undefined) return { ...catalog, tools };
  if (catalog.sources.length > 1) {
    throw new UserError({
      code: "E_OPTION",
      message: "--base-url applies to a server made from one source; this one has several",
    });
  }
  const serverUrl = baseUrl.replace(/\/+$/, "");
  return { ...catalog, tools: tools.map((tool) => ({ ...tool, operation: { ...tool.operation, serverUrl } })) };
}
