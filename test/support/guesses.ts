// Guesses at a secret, as an attacker who can place text at a cut would write them: pieces of each form the masker
// knows (the secret in either case, hex in either case, base64 and base64url at each alignment, percent-, JSON- and
// HTML-escaped), a wrong guess of the same length and shape for each, and a way to compare two answers that leaves
// out only the guess itself (which the caller wrote, so knows), so any other difference is something learnt.

/** Where a guess sits in the text a test sends: `..` before it, `..tail` after it. */
export const OPEN = "..";
export const CLOSE = "..tail";

export function keyForms(key: string): Record<string, string> {
  const bytes = Buffer.from(key);
  const forms: Record<string, string> = {
    "as is": key,
    "lower case": key.toLowerCase(),
    "upper case": key.toUpperCase(),
    hex: bytes.toString("hex"),
    HEX: bytes.toString("hex").toUpperCase(),
    "percent-escaped": [...bytes].map((b) => `%${b.toString(16).toUpperCase()}`).join(""),
    "JSON \\u-escaped": [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    "HTML hex references": [...key].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(""),
    "HTML decimal references": [...key].map((c) => `&#${c.charCodeAt(0)};`).join(""),
  };
  for (const offset of [0, 1, 2]) {
    // The characters that depend on the key's bits alone, as the masker computes them (secret-forms.ts).
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const core = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    forms[`base64 at alignment ${offset}`] = core;
    forms[`base64url at alignment ${offset}`] = core.replace(/\+/g, "-").replace(/\//g, "_");
  }
  return forms;
}

/**
 * Lengths of the pieces tried: short ones (a cut used to look from 4 on), a longer one, and the whole form of the key
 * but its last character (`lessLast`: a form less its last character may still be a complete one, as `&#x4c`).
 */
export function pieceLengths({ form, lessLast }: { form: string; lessLast: string }): number[] {
  const wanted = [1, 3, 4, 5, 8, lessLast.length];
  return [...new Set(wanted.filter((n) => n >= 1 && n <= lessLast.length && n < form.length))];
}

/**
 * A key of the same shape with every character different: letters and digits moved one along (`a`→`b`, `7`→`8`).
 * For a key without `c`, `z`, `Z` or `9`, each of its forms is as long as the key's, escaped and encoded alike.
 */
export function wrongKey(key: string): string {
  return key.replace(/[a-yA-Y0-8]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 1));
}

/** The answer with the guess (whatever of it shows, up to CLOSE or a cut) written as x's: what is left is learnt. */
export function blind(answer: string): string {
  return answer.replace(/\.\.([^.…"\n]*)/g, (_, guess: string) => `${OPEN}${"x".repeat(guess.length)}`);
}
