// A local GitHub on 127.0.0.1 for GitHub's spec (node_modules/@octokit/openapi): every operation answers with a
// schema-valid, realistically sized response made from the spec's examples (or its schemas where an example does
// not validate), seeded: the same seed and request give the same bytes. Where tasks need consistent data it serves a
// small world (github-world.mjs): repositories, issues with labels and dates, pull requests, comments, members;
// lists paginate with per_page/page and Link headers. Every response it sends is checked with the project's own
// validator (the engine's output validation), and every request is recorded, for comparing upstream effects.
//
//   const upstream = await startGithubUpstream({ seed: 1 });  ...  upstream.requests, upstream.invalid, close()

import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { loadCatalog } from "../dist/index.js";
import { Validator } from "../dist/runtime/checks/validate.js";
import { GITHUB_SPEC } from "./corpus-check.mjs";
import { templateOf } from "./github-values.mjs";
import { GithubWorld } from "./github-world.mjs";
import { worldRoutes } from "./github-routes.mjs";
import { genericAnswer } from "./github-generic.mjs";

/** The catalog, spec and validator, loaded once per process (a second upstream reuses them). */
let loaded;
async function load() {
  if (loaded) return loaded;
  const catalog = await loadCatalog(GITHUB_SPEC);
  const spec = JSON.parse(readFileSync(GITHUB_SPEC, "utf8"));
  const routes = catalog.tools
    .map((tool) => ({ tool, ...compile(tool.operation.path) }))
    .sort((a, b) => b.literals - a.literals);
  loaded = { catalog, spec, routes, validator: new Validator({ definitions: catalog.definitions }) };
  return loaded;
}

function compile(path) {
  const names = [];
  const pattern = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([^}]+)\}/g, (_, name) => {
    names.push(name);
    return "([^/]+)";
  });
  return { regex: new RegExp(`^${pattern}$`), names, literals: path.split("/").filter((s) => !s.includes("{")).length };
}

export async function startGithubUpstream({ seed = 1 } = {}) {
  const { catalog, spec, routes, validator } = await load();
  const templates = new Map();
  const template = (name) => {
    if (!templates.has(name)) {
      const tool = catalog.tools.find((t) => t.name === name);
      templates.set(name, tool && templateOf({ spec, tool, validator, definitions: catalog.definitions, seed }));
    }
    return structuredClone(templates.get(name)?.value);
  };
  let world = new GithubWorld({ seed, template });
  let handlers = worldRoutes(world);
  const state = { requests: [], invalid: [], served: 0 };

  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const url = new URL(req.url ?? "/", "http://upstream");
      state.requests.push({ method: req.method, url: req.url, body });
      const route = routes.find((r) => r.tool.operation.method === req.method && r.regex.test(url.pathname));
      if (!route) return send(res, 404, { message: "Not Found" });
      const values = route.regex.exec(url.pathname).slice(1).map(decodeURIComponent);
      const params = Object.fromEntries(route.names.map((name, i) => [name, values[i]]));
      const request = { tool: route.tool, params, query: url.searchParams, body: body ? JSON.parse(body) : {} };
      const answer =
        handlers[route.tool.name]?.(request) ??
        genericAnswer({ request, template: template(route.tool.name), seed, world, status: successOf(spec, route) });
      if (answer.json !== undefined && answer.status < 300) check(route.tool, answer.json);
      const headers = answer.link ? { link: linkHeader(url, answer.link) } : {};
      send(res, answer.status, answer.json, headers);
    });
  });

  function check(tool, json) {
    state.served++;
    const mismatches = validator.output(tool, tool.outputWrapped ? { result: json } : json);
    if (mismatches.length > 0) state.invalid.push({ tool: tool.name, mismatch: mismatches[0] });
  }

  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    get world() {
      return world;
    },
    catalog,
    /** The world as the seed makes it again (writes undone), and no requests recorded. */
    reset() {
      world = new GithubWorld({ seed, template });
      handlers = worldRoutes(world);
      state.requests = [];
    },
    get requests() {
      return state.requests;
    },
    /** Responses sent that the project's validator refused (tool and first mismatch); empty when all conform. */
    get invalid() {
      return state.invalid;
    },
    get served() {
      return state.served;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function successOf(spec, route) {
  const responses = spec.paths[route.tool.operation.path]?.[route.tool.operation.method.toLowerCase()]?.responses;
  return Number(Object.keys(responses ?? {}).find((code) => code.startsWith("2")) ?? 200);
}

function send(res, status, json, headers = {}) {
  if (json === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify(json);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(text);
}

/** GitHub's Link header: next/last (and prev/first past page 1), per_page kept. */
function linkHeader(url, { page: current, last, perPage }) {
  const at = (n, rel) => {
    const target = new URL(url.pathname + url.search, "https://api.github.com");
    target.searchParams.set("per_page", String(perPage));
    target.searchParams.set("page", String(n));
    return `<${target.href}>; rel="${rel}"`;
  };
  const links = [];
  if (current < last) links.push(at(current + 1, "next"), at(last, "last"));
  if (current > 1) links.push(at(current - 1, "prev"), at(1, "first"));
  return links.join(", ");
}

export { ORG, OWNER } from "./github-world.mjs";
