// Include/exclude filters over operations: `tag:NAME`, `op:OPERATION_ID`, `path:GLOB`, `method:VERB`.
// Path globs: `*` and `?` stay within one segment, `**` crosses segments, and braces are literal so that
// `path:/pets/{petId}` names the template itself.

import { UserError } from "./errors.js";

export interface Filterable {
  tags: string[];
  operationId?: string;
  /** The tool's name (for `op:` on operations without an operationId). */
  name: string;
  path: string;
  method: string;
}

export interface Filter {
  text: string;
  matches: (item: Filterable) => boolean;
}

export interface FilterSet {
  include: Filter[];
  exclude: Filter[];
}

const KINDS = ["tag", "op", "path", "method"] as const;

export function parseFilter(text: string, place = "filter"): Filter {
  const colon = text.indexOf(":");
  const kind = text.slice(0, colon) as (typeof KINDS)[number];
  const value = text.slice(colon + 1);
  if (colon < 0 || !KINDS.includes(kind) || value.length === 0) {
    throw new UserError({
      code: "E_FILTER",
      message: `${place}: '${text}' is not a filter; use tag:NAME, op:OPERATION_ID, path:GLOB or method:VERB`,
    });
  }
  switch (kind) {
    case "tag": {
      const tag = value.toLowerCase();
      return { text, matches: (item) => item.tags.some((t) => t.toLowerCase() === tag) };
    }
    case "op":
      return { text, matches: (item) => item.operationId === value || item.name === value };
    case "method": {
      const method = value.toUpperCase();
      return { text, matches: (item) => item.method.toUpperCase() === method };
    }
    case "path": {
      const pattern = globToRegExp(value);
      return { text, matches: (item) => pattern.test(item.path) };
    }
  }
}

export function parseFilters({
  include = [],
  exclude = [],
  place,
}: {
  include?: string[];
  exclude?: string[];
  place?: string;
}): FilterSet {
  return {
    include: include.map((text) => parseFilter(text, place)),
    exclude: exclude.map((text) => parseFilter(text, place)),
  };
}

/** A built tool as filters see it (the builder filters operations before they are tools). */
export function toolPasses(
  tool: {
    name: string;
    origin: { tags: string[]; operationId?: string };
    operation: { path: string; method: string };
  },
  filters: FilterSet,
): boolean {
  const { tags, operationId } = tool.origin;
  const { path, method } = tool.operation;
  return passes(
    { tags, name: tool.name, path, method, ...(operationId !== undefined ? { operationId } : {}) },
    filters,
  );
}

/** Kept when no include is given or one matches, and no exclude matches. Records which filters matched. */
export function passes(item: Filterable, filters: FilterSet, matched?: Set<Filter>): boolean {
  let included = filters.include.length === 0;
  for (const filter of filters.include) {
    if (filter.matches(item)) {
      matched?.add(filter);
      included = true;
    }
  }
  if (!included) return false;
  let excluded = false;
  for (const filter of filters.exclude) {
    if (filter.matches(item)) {
      matched?.add(filter);
      excluded = true;
    }
  }
  return !excluded;
}

export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (char === "*") {
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else {
      source += char.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}
