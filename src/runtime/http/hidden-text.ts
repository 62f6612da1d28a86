// Characters that show nothing to the person watching but that a model reads: Unicode tag characters (an invisible
// copy of ASCII that tokenizers read as text), zero-width characters (words split to slip past filters, bits
// encoded between letters), bidirectional controls (text that reads otherwise than it shows), runs of variation
// selectors (bytes smuggled after an emoji). Removed from text an API returns before a model reads it. Joiners and
// variation selectors are kept where scripts and emoji need them, so visible text is unchanged byte for byte.

/**
 * Always removed: format characters (category Cf) that render as nothing (soft hyphen, the Arabic letter mark,
 * zero-width space, LRM/RLM, the bidi embeddings, overrides and isolates, word joiner and the invisible math
 * operators, the deprecated U+206A–U+206F, a BOM inside text, interlinear annotation, shorthand and musical format
 * controls, tags), the Khmer inherent vowels Unicode says not to use, and the Hangul fillers that stand alone.
 * Kept: the Cf characters that show (Arabic number signs U+0600–U+0605, U+06DD, U+070F, U+0890, U+0891, U+08E2,
 * Kaithi U+110BD, U+110CD) and the Egyptian hieroglyph layout controls.
 */
const HIDDEN =
  "\\u00AD\\u061C\\u17B4\\u17B5\\u200B\\u200E\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFEFF\\uFFA0\\uFFF9-\\uFFFB" +
  "\\u{1BCA0}-\\u{1BCA3}\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E007F}";
/**
 * ZWNJ, ZWJ, the combining grapheme joiner and the Mongolian vowel separator: kept one at a time after a letter,
 * mark or emoji of a script that uses them (Persian, Indic scripts, Malayalam's word-final chillu, emoji sequences).
 */
const JOINERS = "\\u034F\\u180E\\u200C\\u200D";
/** Variation selectors: kept one at a time after a visible character that is not an ASCII letter. */
const SELECTORS = "\\uFE00-\\uFE0F\\u{E0100}-\\u{E01EF}";

/** Any character that may be removed; a string without one is returned as it is (the common case, one scan). */
const CANDIDATE = new RegExp(`[${HIDDEN}${JOINERS}${SELECTORS}]|\\p{Cs}`, "u");
const FIND = new RegExp(CANDIDATE.source, "gu");
const ALWAYS = new RegExp(`^(?:[${HIDDEN}]|\\p{Cs})$`, "u");
const JOINER = new RegExp(`^[${JOINERS}]$`, "u");
const SELECTOR = new RegExp(`^[${SELECTORS}]$`, "u");
/** What a joiner may follow: a letter, mark or emoji of a script that uses joiners (not ASCII), or a kept selector. */
const JOINS_AFTER = new RegExp(
  `^(?![\\x00-\\x7F${JOINERS}])[\\p{L}\\p{M}\\p{Extended_Pictographic}\\p{Emoji_Modifier}]$`,
  "u",
);
/** What a selector may follow: a visible character other than an ASCII letter (digits for keycaps, ©, emoji, CJK). */
const SELECTS = new RegExp(`^(?![A-Za-z${JOINERS}${SELECTORS}])[^\\s\\p{C}]$`, "u");

/** JSON as JSON.stringify writes it, which escapes lone surrogates (`\udb40`) and writes every other character. */
const ESCAPED_SURROGATE = /\\ud[89a-f][0-9a-f]{2}/i;

/** A JSON `\u` escape of a character that may be removed (or of a surrogate): written in a body as it came. */
const ESCAPED_CANDIDATE =
  /\\u(?:00ad|034f|061c|17b[45]|180e|200[b-f]|202[a-e]|206[0-9a-f]|3164|fe0[0-9a-f]|feff|ffa0|fff[9ab]|d[89a-f][0-9a-f]{2})/i;

/** Whether JSON text as an API wrote it may hold such a character as an escape (`\u200b`, `\udb40\udc41`). */
export function escapesHidden(json: string): boolean {
  return ESCAPED_CANDIDATE.test(json);
}

/** Whether `text` holds a character `stripHidden` may remove; false means it would return `text` unchanged. */
export function mayHide(text: string): boolean {
  return CANDIDATE.test(text);
}

/** A selector after a string's opening quote or an escaped control character: judged otherwise in the text. */
const SELECTOR_OPENS = new RegExp(`(?:"|\\\\u00[01][0-9a-f])[${SELECTORS}]`, "iu");

/**
 * Whether any string (value or key) of JSON written by JSON.stringify has a character `stripHidden` would remove,
 * judged on the whole text at once: inside a string each candidate has the same neighbours as in the text, except
 * at the string's ends, where the quote stands for nothing (a joiner after `"` goes either way, as after any ASCII
 * character; one before `"` stays either way), and after escapes (`\n` stands for a control character, and the
 * `n` judges as one; `\u0001` ends in a digit, which is looked for apart before a selector, as a selector opening
 * a string is). Lone surrogates are written as escapes, looked for apart too.
 */
export function jsonHides(json: string): boolean {
  if (!CANDIDATE.test(json)) return ESCAPED_SURROGATE.test(json);
  return ESCAPED_SURROGATE.test(json) || SELECTOR_OPENS.test(json) || stripHidden(json).removed > 0;
}

/** `text` without its hidden characters, and how many were removed (characters, not UTF-16 units). */
export function stripHidden(text: string): { text: string; removed: number } {
  if (!CANDIDATE.test(text)) return { text, removed: 0 };
  return rewrite({ text, replace: () => "" });
}

/** `text` with its hidden characters written visibly (`[U+200B]`), for where removing them would lose something. */
export function showHidden(text: string): string {
  return rewrite({ text, replace: (char) => `[U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]` })
    .text;
}

function rewrite({ text, replace }: { text: string; replace: (char: string) => string }): {
  text: string;
  removed: number;
} {
  // Only the candidates are looked at; what lies between them is copied. Lone surrogates match one each: removing
  // both at once means no new pair can form where they met.
  const parts: string[] = [];
  let removed = 0;
  let kept: string | undefined;
  let last = 0;
  for (const match of text.matchAll(FIND)) {
    const char = match[0];
    if (match.index > last) {
      parts.push(text.slice(last, match.index));
      kept = charBefore(text, match.index);
    }
    last = match.index + char.length;
    if (hidden({ char, kept, next: () => nextShown(text, last) })) {
      parts.push(replace(char));
      removed++;
    } else {
      parts.push(char);
      kept = char;
    }
  }
  parts.push(text.slice(last));
  return { text: parts.join(""), removed };
}

/** The code point that ends at `end` (> 0) in `text`. */
function charBefore(text: string, end: number): string {
  const low = text.charCodeAt(end - 1);
  const high = end >= 2 ? text.charCodeAt(end - 2) : 0;
  const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return text.slice(pair ? end - 2 : end - 1, end);
}

/** The first character from `at` on that is not always removed: what a joiner before `at` ends up before. */
function nextShown(text: string, at: number): string | undefined {
  let i = at;
  while (i < text.length) {
    const char = String.fromCodePoint(text.codePointAt(i)!);
    if (!ALWAYS.test(char)) return char;
    i += char.length;
  }
  return undefined;
}

function hidden({
  char,
  kept,
  next,
}: {
  char: string;
  kept: string | undefined;
  next: () => string | undefined;
}): boolean {
  if (ALWAYS.test(char)) return true;
  if (JOINER.test(char)) {
    if (kept === undefined || !JOINS_AFTER.test(kept)) return true;
    // Before another joiner or a selector it goes (what always goes does not count): of a run, one at most stays.
    const after = next();
    return after !== undefined && CANDIDATE.test(after);
  }
  if (SELECTOR.test(char)) return kept === undefined || !SELECTS.test(kept);
  return true;
}
