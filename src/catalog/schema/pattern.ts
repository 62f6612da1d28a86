// Patterns from documents run on RE2's semantics (re2js, a port of RE2 to plain JavaScript): time linear in the
// length of the text whatever the pattern. JavaScript's backtracking RegExp takes minutes on 35 characters for
// `^(a+)+$`, blocking every other call of the process. What RE2 cannot run (lookaround, backreferences) is not
// checked at all; the loader says so for each pattern.

import { RE2JS } from "re2js";
import { messageOf } from "../errors.js";

export interface PatternTest {
  test(text: string): boolean;
}

/** RE2 refuses counted repetition above this. */
const MAX_REPEAT = 1000;

/**
 * `pattern` (ECMAScript syntax, as in JSON Schema) compiled for linear-time matching, or RE2's reason for
 * refusing it. Counts above 1,000 (`^.{0,4096}$`) are checked as at least min(count, 1,000) with no upper
 * bound: looser than the document, never stricter, so a valid value is never refused.
 */
export function compileLinear(pattern: string): { test: PatternTest } | { refused: string } {
  try {
    // translateRegExp turns ECMAScript-only syntax (`\u00e9`, `(?<name>…)`) into RE2's.
    return { test: RE2JS.compile(unboundLargeRepeats(RE2JS.translateRegExp(pattern)), RE2JS.LOOKBEHINDS) };
  } catch (error) {
    return { refused: messageOf(error).replace(/^error parsing regexp: /, "") };
  }
}

/** Whether `pattern` repeats more than RE2 allows, so that it is checked with a looser count. */
export function hasLargeRepeat(pattern: string): boolean {
  return unboundLargeRepeats(pattern) !== pattern;
}

const BRACED_ESCAPE = /\\[xpPu]\{[^}]*\}/y;
const REPEAT = /\{(\d+)(,(\d*))?\}/y;

/** `x{0,4096}` → `x{0,}`, `x{2000}` → `x{1000,}`; escapes (`\{`, `\x{…}`, `\p{…}`) and classes left alone. */
function unboundLargeRepeats(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      BRACED_ESCAPE.lastIndex = i;
      const escaped = BRACED_ESCAPE.exec(pattern)?.[0] ?? pattern.slice(i, i + 2);
      out += escaped;
      i += escaped.length - 1;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      // In RE2's syntax a `]` right after `[` or `[^` is a member, not the end.
      const lead = pattern.startsWith("[^]", i) ? "[^]" : pattern.startsWith("[]", i) ? "[]" : "[";
      out += lead;
      i += lead.length - 1;
    } else if (c === "{") {
      REPEAT.lastIndex = i;
      const repeat = REPEAT.exec(pattern);
      const min = Number(repeat?.[1]);
      const max = repeat?.[2] === undefined ? min : Number(repeat[3] || 0);
      if (repeat && (min > MAX_REPEAT || max > MAX_REPEAT)) {
        out += `{${Math.min(min, MAX_REPEAT)},}`;
        i += repeat[0].length - 1;
      } else {
        out += c;
      }
    } else {
      out += c;
    }
  }
  return out;
}
