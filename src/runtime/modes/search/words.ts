// Words for tool search: API text (names in camelCase, snake_case and kebab-case, paths, prose) and a user's request
// are cut into the same lower-case stems, so "repositories", "repo" and "listForRepo" meet. Deliberately light:
// a few suffix rules rather than a full stemmer, which would also merge words an API keeps apart.

import { INTENTS, type Intent, PHRASES, RELATED, SAME, STOP } from "./vocabulary.js";

/** The words of `text`, split at case changes, digits and punctuation, lower-cased. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
}

/** A word as matched: by its stem, and a little more by the word as written ("branches" in "List branches"). */
export interface Term {
  stem: string;
  /** The written form, marked so that it never equals a stem. */
  surface: string;
}

function term(word: string): Term {
  const same = SAME.get(word) ?? word;
  return { stem: stem(same), surface: `=${same}` };
}

/** The terms of `text` that carry meaning: no stop words, no bare numbers. */
export function terms(text: string): Term[] {
  return words(text)
    .filter((word) => !STOP.has(word) && !/^\d+$/.test(word))
    .map(term);
}

/**
 * Nouns written as one word in one place and as two in another ("replicasets" in a path, "ReplicaSet" in a name,
 * "replica set" in a request; "payment_intents", "paymentintent"): the two words of a name joined, as one more term.
 * `text` is split at spaces; each part's adjacent words (by case, `_` or `-`) are joined in pairs.
 */
export function joinedTerms(text: string): Term[] {
  const found: Term[] = [];
  for (const part of text.split(/[\s/{}()[\],.:;"'`]+/)) {
    const inside = words(part);
    for (let at = 1; at < inside.length; at++) {
      const [first, second] = [inside[at - 1]!, inside[at]!];
      if (/^[a-z]{3,}$/.test(first) && /^[a-z]{3,}$/.test(second)) found.push(term(first + second));
    }
  }
  return found;
}

/**
 * The query without the values in it, which are arguments rather than what to do: quoted text, `owner/name` and
 * file paths, e-mail addresses, host names, `key=value`, ids (`cus_123`, `web-7f9`), CONSTANT_NAMES, `#42`, versions.
 */
function withoutValues(query: string): string {
  return query
    .replace(/(["'`])[^"'`]*\1/g, " ")
    .replace(/\S+[/@=]\S+/g, " ")
    .replace(/\b[a-z][\w-]*(?:\.[a-z][\w-]*)+\b/gi, " ")
    .replace(/\b[a-z]+(?:[_-][a-z0-9]+)*[_-][a-z]*\d[a-z0-9]*\b/gi, " ")
    .replace(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g, " ")
    .replace(/#\d+|\bv?\d+(?:\.\d+)+\b/g, " ");
}

/** Whether a query asks something ("what…", "how many…", "did…?"): then it wants to read, not to change. */
export function isQuestion(query: string): boolean {
  return (
    /^\s*(?:what|what's|which|who|whose|how|when|where|why|did|does|do|is|are|was|were|has|have|can)\b/i.test(query) ||
    /\?\s*$/.test(query)
  );
}

/**
 * What the query wants done: a question reads; otherwise its first verb that says. A request that opens with a
 * word the API does not name a thing with ("restart the web app", "cordon node 3") is a command: a change.
 */
export function intentOf(query: string, { isNoun }: { isNoun: (stem: string) => boolean }): Intent | undefined {
  if (isQuestion(query)) return "read";
  const found = words(phrased(query));
  for (const word of found) {
    const intent = INTENTS.get(word);
    if (intent) return intent;
  }
  const first = found.find((word) => !STOP.has(word));
  return first !== undefined && /^[a-z]{3,}$/.test(first) && !isNoun(term(first).stem) ? "change" : undefined;
}

/** The query lower-cased, its phrases made words ("pull requests" → pull), and its values taken out unless kept. */
export function phrased(query: string, { keepValues = false }: { keepValues?: boolean } = {}): string {
  let text = (keepValues ? query : withoutValues(query)).toLowerCase();
  for (const [phrase, word] of PHRASES) text = text.replace(phrase, word);
  return text;
}

/** One word of a query: its term (none for a stop word), and the terms of words it implies. */
export interface QueryWord {
  term?: Term;
  related: Term[];
}

/** The query's words, each once; a stop word only for the words it implies ("all" → list, "my" → authenticated). */
export function queryWords(query: string): QueryWord[] {
  const text = phrased(query);
  const found: QueryWord[] = [];
  const seen = new Set<string>();
  for (const word of words(text)) {
    if (/^\d+$/.test(word)) continue;
    const own = term(word);
    if (seen.has(own.stem)) continue;
    seen.add(own.stem);
    const related = (RELATED.get(word) ?? RELATED.get(own.stem) ?? []).map(term).filter((r) => r.stem !== own.stem);
    if (!STOP.has(word)) found.push({ term: own, related });
    else if (related.length > 0) found.push({ related });
  }
  // Two words said in a row may be one noun an API writes as one word ("replica set" → replicasets).
  const plain = words(text).filter((word) => !STOP.has(word) && /^[a-z]{3,}$/.test(word));
  for (let at = 1; at < plain.length; at++) found.push({ related: [term(plain[at - 1]! + plain[at]!)] });
  // A word the query says outright is not also counted as implied ("bug" implies issue in "bug label on an issue").
  const said = new Set(found.map((word) => word.term?.stem));
  return found
    .map((word) => ({ ...word, related: word.related.filter((r) => !said.has(r.stem)) }))
    .filter((word) => word.term || word.related.length > 0);
}

/** A light stem: plurals, -ing, -ed, -ation and a final -e go, so "creates", "creating" and "created" meet "create". */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(?:ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suffix of ["ing", "ed"]) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // "starred" → "star", "running" → "run" (but "call", "pass" keep their double letter).
      if (/([b-df-hj-kmnp-tv-z])\1$/.test(w) && !/(?:ll|ss|ff|zz)$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  if (w.endsWith("ation") && w.length > 7) w = w.slice(0, -5);
  // "protection" meets "protect", "reaction" "react" (but "action" stays).
  else if (/[ts]ion$/.test(w) && w.length >= 7) w = w.slice(0, -3);
  // Who does it meets what is done: "contributor" and "contributed", "watcher" and "watch".
  else if (/(?:er|or)$/.test(w) && w.length >= 7) w = w.slice(0, -2);
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}
