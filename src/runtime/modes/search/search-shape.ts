// What a REST path says about a tool, held against what a request says, for tool search. True of any API, not of
// one: a path that ends in a parameter acts on one item, one that ends in a plural collection on many; the items
// named before a parameter scope the call (`/namespaces/{namespace}/pods`); `v1beta1` is a pre-release of `v1`.
// Each disagreement scales a tool's score down a little; none removes a tool.

import type { Tool } from "../../../catalog/types.js";
import { phrased, stem, words } from "./words.js";

/** A tool acting on one item when the request names many (or the other way round) counts this much. */
const NUMBER_WEIGHT = 0.9;
/** A tool not scoped by what the request names as a container ("in namespace shop", "of customer X") counts this much. */
const SCOPE_WEIGHT = 0.85;
/** A tool that updates when the request creates (or creates when it updates) counts this much. */
const CHANGE_KIND_WEIGHT = 0.85;
/** Verbs that create something new, and verbs that change what is there (the first of either in a request decides). */
const CREATE_VERBS = new Set(
  "create add new make open publish post submit register upload attach invite deploy install schedule start setup".split(
    " ",
  ),
);
const UPDATE_VERBS = new Set(
  "update edit rename modify change alter set replace patch toggle enable disable scale resize restart pause resume suspend rotate renew extend increase decrease raise lower bump lock unlock archive unarchive close reopen".split(
    " ",
  ),
);
/** A tool in a pre-release version (`v1beta1`, `v2alpha1`) counts this much: the stable one does the same. */
const PRERELEASE_WEIGHT = 0.95;

/** A fixed path segment: its noun's stem, whether it is written in the plural, and what follows it. */
interface Segment {
  stem: string;
  plural: boolean;
  next: "param" | "fixed" | "end";
}

/** Whether the tool acts on one item of a plural segment: one named by a parameter, or one it creates. */
function actsOnOne({ segment, method }: { segment: Segment; method: string }): boolean {
  return segment.next === "param" || method === "POST";
}

export interface Shape {
  method: string;
  segments: Segment[];
  /** Stems of what the tool can be told: its arguments' names and the nouns of its path. */
  scopes: Set<string>;
  prerelease: boolean;
}

export function shapeOf(tool: Tool): Shape {
  const parts = tool.operation.path.split("/").filter((part) => part !== "");
  const segments: Segment[] = [];
  const scopes = new Set<string>();
  parts.forEach((part, at) => {
    if (part.includes("{")) return;
    const last = words(part).at(-1);
    if (last === undefined || /^v\d/.test(last)) return;
    const following = parts[at + 1];
    const next = following === undefined ? "end" : following.includes("{") ? "param" : "fixed";
    segments.push({ stem: stem(last), plural: isPlural(last), next });
    scopes.add(stem(last));
  });
  for (const name of Object.keys(tool.inputSchema.properties ?? {}))
    for (const word of words(name)) scopes.add(stem(word));
  return {
    method: tool.operation.method,
    segments,
    scopes,
    prerelease: /\/v\d+(?:alpha|beta)\d*\//.test(`${tool.operation.path}/`),
  };
}

/** What a request says about number and scope: its nouns' number, and the nouns it names containers with. */
export interface QueryShape {
  /** Stem → whether the request wants many of it (true) or one (false); a word it says nothing of is absent. */
  nouns: Map<string, boolean>;
  /** Whether the request creates something or changes what is there, when its first such verb says. */
  change?: "create" | "update";
  /** Stems of words after "in", "of", "for", "from", "under", "within", "inside", "on" (articles skipped). */
  containers: string[];
}

/** Words before a noun that ask for many of it: "list the open issues", "every node", "all the tags". */
const MANY_BEFORE = new Set(["all", "every", "each", "list"]);
/** Words after a noun that ask for many of it: "the commit history". */
const MANY_AFTER = new Set(["history", "list"]);
/** Words before a noun that name one: "the web deployment", "a charge", "this issue". */
const DETERMINERS = new Set(["a", "an", "the", "this", "that", "one", "single", "specific", "given", "my", "its"]);
/** A value after a noun names one of it: "issue 42", "charge ch_123", "pod web-7f9", "user 'bob'". */
const VALUE = /^(?:#?\d|["'`]|\S*[\d_@=/.-])/;
const CONTAINER =
  /\b(?:in|of|for|from|under|within|inside|on|across)\s+(?:(?:the|a|an|my|our|your|this|that|its|their)\s+)?([a-z][a-z0-9]*)/g;

export function queryShape(query: string): QueryShape {
  const raw = phrased(query, { keepValues: true })
    .split(/\s+/)
    .filter((token) => token !== "");
  const plain = raw.map((token) => words(token).join(" "));
  const nouns = new Map<string, boolean>();
  plain.forEach((word, at) => {
    if (!/^[a-z]+$/.test(word) || DETERMINERS.has(word) || MANY_BEFORE.has(word)) return;
    const before = plain.slice(Math.max(0, at - 3), at);
    const key = stem(word);
    if (isPlural(word) || before.some((w) => MANY_BEFORE.has(w)) || MANY_AFTER.has(plain[at + 1] ?? ""))
      nouns.set(key, true);
    else if (before.slice(-2).some((w) => DETERMINERS.has(w))) nouns.set(key, false);
    else if (raw[at + 1] !== undefined && VALUE.test(raw[at + 1]!)) nouns.set(key, false);
  });
  const verb = plain.find((word) => CREATE_VERBS.has(word) || UPDATE_VERBS.has(word));
  const change = verb === undefined ? undefined : CREATE_VERBS.has(verb) ? "create" : "update";
  const containers = [...phrased(query).matchAll(CONTAINER)].map((match) => stem(match[1]!));
  return { nouns, containers, ...(change ? { change } : {}) };
}

/** How much a tool's score is scaled for what its path says against the request. */
export function shapeWeight({ shape, query }: { shape: Shape; query: QueryShape }): number {
  let weight = shape.prerelease ? PRERELEASE_WEIGHT : 1;
  // The most specific plural collection the request names: one item of it (followed by a parameter) or all of it.
  for (let at = shape.segments.length - 1; at >= 0; at--) {
    const segment = shape.segments[at]!;
    const wantsMany = query.nouns.get(segment.stem);
    if (wantsMany === undefined || !segment.plural || segment.next === "fixed") continue;
    if (wantsMany === actsOnOne({ segment, method: shape.method })) weight *= NUMBER_WEIGHT;
    break;
  }
  const kind = changeKind(shape);
  if (query.change && kind && kind !== query.change) weight *= CHANGE_KIND_WEIGHT;
  for (const container of query.containers) if (!shape.scopes.has(container)) weight *= SCOPE_WEIGHT;
  return weight;
}

/** A POST to a collection creates; PUT, PATCH and a POST to one item change what is there. */
function changeKind({ method, segments }: Shape): "create" | "update" | undefined {
  if (method === "PUT" || method === "PATCH") return "update";
  if (method !== "POST") return undefined;
  return segments.at(-1)?.next === "param" ? "update" : "create";
}

/** A plural as written: "pods", "replicasets", "policies" (not "status", "address", "analysis"). */
function isPlural(word: string): boolean {
  return word.length > 3 && /s$/.test(word) && !/(?:ss|us|is)$/.test(word);
}
