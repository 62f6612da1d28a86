// Finding tools by what a user wants done: BM25 over each tool's fields (tool-text.ts), each field with its own
// document frequencies (as search engines score several fields: "repository" is in nearly every path but in few
// summaries), weighted and summed over the query's words. Ties keep the catalog's order: the same query always
// gives the same list.
//
// Written here rather than taken from a library: the scoring is a few dozen lines; what decides quality is the
// tokenizer, the fields and their weights, which would be ours either way, and a generated project then carries
// no extra dependency.

import type { JsonSchema, Tool } from "../../../catalog/types.js";
import { type Shape, queryShape, shapeOf, shapeWeight } from "./search-shape.js";
import { FIELD_WEIGHTS, FIELDS, isDeprecated, toolText } from "./tool-text.js";
import type { Intent } from "./vocabulary.js";
import { intentOf, joinedTerms, queryWords, type Term, terms } from "./words.js";

/** Query words the user did not say, only implied ("remove" for "delete"), count this much. */
const RELATED_WEIGHT = 0.6;
/** A match of the word as written, not only its stem ("branches" in "List branches"), adds this much. */
const SURFACE_WEIGHT = 0.2;
/** How much matching only part of the query costs: the score is scaled by (matched share) ** COVERAGE. */
const COVERAGE = 1;
/** A tool whose method does not do what the request wants (a DELETE for "show…", a GET for "add…") counts this much. */
const OTHER_INTENT_WEIGHT = 0.65;
/** A tool that says it is deprecated counts this much: its replacement does the same. */
const DEPRECATED_WEIGHT = 0.5;
/** Fields where names are written: compound words in them are also found joined. */
const JOINED_FIELDS = new Set(["name", "summary", "tags", "resource", "path"]);
/** BM25's usual constants: term-frequency saturation and length normalization. */
const K1 = 1.2;
const B = 0.75;
/** A posting packs tool, field and count into one integer: tool * 512 + field * 32 + count (counts stop at 31; up to 16 fields). */
const PER_TOOL = 512;
const PER_FIELD = 32;

export interface SearchHit {
  tool: Tool;
  score: number;
}

export class ToolSearch {
  private readonly tools: readonly Tool[];
  /** Term → packed postings, in tool order: compact enough for 20,000 tools. */
  private readonly postings = new Map<string, Int32Array>();
  /** Terms in each tool's fields: lengths[tool * FIELDS.length + field]. */
  private readonly lengths: Uint16Array;
  private readonly averages: number[];
  /** Tools that say they are deprecated. */
  private readonly deprecated: Set<number>;
  /** What each tool's path says (search-shape.ts). */
  private readonly shapes: Shape[];
  /** Tools that do the same thing in another version of the API share a key. */
  private readonly keys: string[];
  /** The things the API names in its paths (stems): a request opening with one of them is not a command. */
  private readonly nouns: Set<string>;

  constructor({ tools, definitions }: { tools: readonly Tool[]; definitions: Record<string, JsonSchema> }) {
    this.tools = tools;
    this.deprecated = new Set(tools.flatMap((tool, doc) => (isDeprecated(tool) ? [doc] : [])));
    this.shapes = tools.map(shapeOf);
    this.keys = tools.map((tool) => sameOperationKey(tool.operation));
    this.nouns = new Set(this.shapes.flatMap((shape) => shape.segments.map((segment) => segment.stem)));
    this.lengths = new Uint16Array(tools.length * FIELDS.length);
    const totals = FIELDS.map(() => 0);
    const lists = new Map<string, number[]>();
    tools.forEach((tool, doc) => {
      const text = toolText(tool, definitions);
      FIELDS.forEach((field, f) => {
        const found = terms(text[field]);
        this.lengths[doc * FIELDS.length + f] = Math.min(found.length, 0xffff);
        totals[f]! += found.length;
        const counts = new Map<string, number>();
        for (const { stem, surface } of found)
          for (const term of [stem, surface]) counts.set(term, (counts.get(term) ?? 0) + 1);
        // Joined names ("ReplicaSet" → replicaset) are found too, but do not make the field longer; prose has none.
        if (JOINED_FIELDS.has(field))
          for (const { stem } of joinedTerms(text[field])) if (!counts.has(stem)) counts.set(stem, 1);
        for (const [term, count] of counts) {
          const list = lists.get(term) ?? [];
          if (list.length === 0) lists.set(term, list);
          list.push(doc * PER_TOOL + f * PER_FIELD + Math.min(count, PER_FIELD - 1));
        }
      });
    });
    for (const [term, list] of lists) this.postings.set(term, Int32Array.from(list));
    this.averages = totals.map((total) => total / Math.max(1, tools.length) || 1);
  }

  /**
   * The best `limit` tools for `query`, best first; ties in catalog order. Each query word scores a tool by its own
   * term plus, at a lower weight, the best of the words it implies; the sum is then scaled by the share of the
   * query's words the tool matches at all, so a tool that matches one rare word (an owner's name that is also a
   * tool's) does not beat one that matches the whole request.
   */
  search(query: string, limit: number): SearchHit[] {
    // "unfollow", "unstar": where the index has no such word, the word it undoes, and a removal.
    const words = queryWords(query).map((word) =>
      word.term && !this.postings.has(word.term.stem) && /^=un[a-z]{4,}$/.test(word.term.surface)
        ? { term: terms(word.term.surface.slice(3))[0], related: terms("remove delete") }
        : word,
    );
    const totals = new Map<number, { score: number; matched: number }>();
    for (const word of words) {
      const best = new Map<number, number>();
      for (const term of word.related) {
        for (const [doc, score] of this.termScores(term))
          best.set(doc, Math.max(best.get(doc) ?? 0, RELATED_WEIGHT * score));
      }
      if (word.term) for (const [doc, score] of this.termScores(word.term)) best.set(doc, (best.get(doc) ?? 0) + score);
      // A stop word's implications ("my" → authenticated) add to the score, not to how much of the query matched.
      const counted = word.term ? 1 : 0;
      for (const [doc, score] of best) {
        const total = totals.get(doc) ?? { score: 0, matched: 0 };
        totals.set(doc, { score: total.score + score, matched: total.matched + counted });
      }
    }
    const asked = words.filter((word) => word.term).length || 1;
    const intent = intentOf(query, { isNoun: (stem) => this.nouns.has(stem) });
    const named = query.trim();
    const shape = queryShape(query);
    const ranked = [...totals].map(([doc, { score, matched }]) => {
      const tool = this.tools[doc]!;
      // A tool whose name is the query (a model that already knows it) comes first.
      if (tool.name === named) return { doc, score: Number.POSITIVE_INFINITY };
      const change = intent && intent !== intentOfMethod(tool.operation.method) ? OTHER_INTENT_WEIGHT : 1;
      const old = this.deprecated.has(doc) ? DEPRECATED_WEIGHT : 1;
      const fit = shapeWeight({ shape: this.shapes[doc]!, query: shape });
      return { doc, score: fit * old * change * score * (matched / asked) ** COVERAGE };
    });
    ranked.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return distinctFirst({ ranked, keys: this.keys })
      .slice(0, limit)
      .map(({ doc, score }) => ({ tool: this.tools[doc]!, score }));
  }

  /** A term's score for each tool that has its stem, a little more where the word is written the same. */
  private termScores({ stem, surface }: Term): Map<number, number> {
    const scores = this.scores(stem);
    for (const [doc, score] of this.scores(surface)) scores.set(doc, (scores.get(doc) ?? 0) + SURFACE_WEIGHT * score);
    return scores;
  }

  /** BM25 of one term for each tool that has it: per field, with that field's document frequency, weighted. */
  private scores(term: string): Map<number, number> {
    const scores = new Map<number, number>();
    const list = this.postings.get(term);
    if (!list) return scores;
    const frequencies = FIELDS.map(() => 0);
    for (const entry of list) frequencies[((entry % PER_TOOL) / PER_FIELD) | 0]!++;
    const n = this.tools.length;
    const weights = frequencies.map((df, f) => FIELD_WEIGHTS[FIELDS[f]!] * Math.log(1 + (n - df + 0.5) / (df + 0.5)));
    for (const entry of list) {
      const doc = (entry / PER_TOOL) | 0;
      const f = ((entry % PER_TOOL) / PER_FIELD) | 0;
      const count = entry % PER_FIELD;
      const norm = 1 - B + (B * this.lengths[doc * FIELDS.length + f]!) / this.averages[f]!;
      scores.set(doc, (scores.get(doc) ?? 0) + weights[f]! * ((count * (K1 + 1)) / (count + K1 * norm)));
    }
    return scores;
  }
}

/** Among the first results, five different operations: another version of one already shown comes after them. */
const DISTINCT = 5;
function distinctFirst<T extends { doc: number }>({ ranked, keys }: { ranked: T[]; keys: string[] }): T[] {
  const first: T[] = [];
  const later: T[] = [];
  const seen = new Set<string>();
  for (const hit of ranked) {
    const key = keys[hit.doc]!;
    if (first.length < DISTINCT && !seen.has(key)) {
      first.push(hit);
      seen.add(key);
    } else later.push(hit);
  }
  return [...first, ...later];
}

/** The method and path without versions and parameter names: `/apis/autoscaling/v2/…/{name}` as `/apis/autoscaling/v/…/{}`. */
function sameOperationKey({ method, path }: { method: string; path: string }): string {
  return `${method} ${path.replace(/\/v\d+(?:(?:alpha|beta)\d*)?(?=\/|$)/g, "/v").replace(/\{[^}]*\}/g, "{}")}`;
}

function intentOfMethod(method: string): Intent {
  if (method === "GET" || method === "HEAD") return "read";
  return method === "DELETE" ? "delete" : "change";
}
