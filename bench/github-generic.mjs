// How the local GitHub answers operations the world (github-world.mjs) does not model: the operation's template with
// the request's names in its URLs; a list gets a seeded number of items (the same path, the same list), each the
// template's item with its own id, number, name and dates, paginated like GitHub (per_page ≤ 100, default 30).

import { Rng } from "./github-values.mjs";
import { ORG, OWNER } from "./github-world.mjs";

const MAX_PER_PAGE = 100;
const DEFAULT_PER_PAGE = 30;

/** One page of `items` as the query asks, and the Link header's figures. */
export function page({ items, query }) {
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Number(query.get("per_page") ?? DEFAULT_PER_PAGE) || 1));
  const current = Math.max(1, Number(query.get("page") ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  return {
    json: items.slice((current - 1) * perPage, current * perPage),
    link: last > 1 ? { page: current, last, perPage } : undefined,
  };
}

export function genericAnswer({ request, template, seed, world, status }) {
  const { params, query } = request;
  if (params.repo !== undefined && (![OWNER, ORG].includes(params.owner) || !world.repo(params.repo)))
    return { status: 404, json: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } };
  if (template === undefined) return { status };
  const named = world.rewrite(template, {
    ...(params.repo ? { "Hello-World": params.repo } : {}),
    ...(params.owner ? { "octocat/": `${params.owner}/` } : {}),
  });
  const key = `${request.tool.name}:${JSON.stringify(params)}`;
  if (Array.isArray(named)) return { status, ...page({ items: listOf({ items: named, seed, key }), query }) };
  const listed = Object.entries(named).find(([, v]) => Array.isArray(v) && v.length > 0 && typeof v[0] === "object");
  if (listed && typeof named.total_count === "number") {
    const all = listOf({ items: listed[1], seed, key });
    const one = page({ items: all, query });
    return { status, json: { ...named, total_count: all.length, [listed[0]]: one.json }, link: one.link };
  }
  return { status, json: named };
}

/** A seeded number (0–45) of items after the template's own, each with its own identity. */
function listOf({ items, seed, key }) {
  if (items.length === 0) return items;
  const rng = new Rng(seed, key);
  const count = rng.int(0, 45);
  return Array.from({ length: count }, (_, i) => vary({ item: structuredClone(items[i % items.length]), i, rng }));
}

function vary({ item, i, rng }) {
  if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
  if (typeof item.id === "number") item.id = item.id * 1000 + i;
  if (typeof item.number === "number") item.number = i + 1;
  for (const field of ["name", "login", "title", "tag_name"]) {
    if (typeof item[field] === "string" && item[field] !== "") item[field] = `${item[field]}-${i + 1}`;
  }
  if (typeof item.conclusion === "string") item.conclusion = rng.pick(["success", "success", "failure", "cancelled"]);
  const day = String(rng.int(1, 28)).padStart(2, "0");
  const month = String(rng.int(1, 12)).padStart(2, "0");
  for (const field of ["created_at", "updated_at", "pushed_at", "submitted_at", "published_at"]) {
    if (typeof item[field] === "string" && /^\d{4}-\d\d-\d\dT/.test(item[field]))
      item[field] = `2026-${month}-${day}T${item[field].slice(11)}`;
  }
  return item;
}
