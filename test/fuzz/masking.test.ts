// Fuzz: random secrets, each character spelled its own way (as is, either case, percent-encoded in either case,
// `\u`/`\x` escaped, HTML decimal, hex and named references, `+` for a space), the whole sometimes escaped once more
// (`%` as `%25`, `&` as `&amp;`) or base64/base64url-encoded after a prefix of 0-2 bytes, between unrelated text.
// Asserted: masked as text and as bytes, an independent decoder (test/support/guard.ts) recovers no 8-character
// piece of the secret; cut anywhere after masking, no 5-character piece. Seeded (FUZZ_SEED=<n> for another run).

import { expect, it } from "vitest";
import { Masker } from "../../src/runtime/secrets/secrets.js";
import { revealed } from "../support/guard.js";
import { Rng } from "./rng.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const CASES = 3_000;
const SECRET_CHARS = 'abcXYZ019/+=&<"%~_-. :';
/** Unrelated text around the secret, of other characters, so a piece found is the secret's. */
const AROUND = "QWJKqwjk!?;";

function spell(rng: Rng, char: string): string {
  const code = char.charCodeAt(0);
  const hex = code.toString(16).padStart(2, "0");
  const ways = [
    char,
    char.toUpperCase(),
    `%${hex}`,
    `%${hex.toUpperCase()}`,
    `\\u00${hex}`,
    `\\x${hex}`,
    `&#${code};`,
    `&#x${hex.toUpperCase()};`,
  ];
  if (char === "/") ways.push("\\/", "&sol;");
  if (char === "&") ways.push("&amp;", "&AMP;");
  if (char === "+") ways.push("&plus;");
  if (char === " ") ways.push("+");
  return rng.pick(ways);
}

it(`no piece of a secret survives masking in any mix of spellings (${CASES} cases, seed ${SEED})`, () => {
  const rng = new Rng(SEED);
  const failures: string[] = [];
  const text = (length: number): string => Array.from({ length }, () => rng.pick([...AROUND])).join("");
  for (let i = 0; i < CASES; i++) {
    const secret = Array.from({ length: rng.int(6, 26) }, () => rng.pick([...SECRET_CHARS])).join("");
    let form = [...secret].map((char) => spell(rng, char)).join("");
    const layer = rng.int(0, 3);
    if (layer === 1) form = form.replace(/%/g, "%25");
    if (layer === 2) form = form.replace(/&/g, "&amp;");
    if (layer === 3)
      form = Buffer.from(`${"k".repeat(rng.int(0, 2))}${secret}`).toString(rng.bool() ? "base64" : "base64url");
    const body = `${text(rng.int(0, 30))}${form}${text(rng.int(0, 30))}`;
    const masker = new Masker([secret]);
    const shown = { text: masker.maskText(body), bytes: masker.maskBytes(Buffer.from(body)).toString("latin1") };
    for (const [how, output] of Object.entries(shown)) {
      if (revealed(output, secret, { piece: 8 }).length > 0)
        failures.push(`${how}: ${JSON.stringify(secret)} in ${JSON.stringify(body)} -> ${JSON.stringify(output)}`);
    }
    const at = rng.int(0, body.length);
    const cut = masker.maskedPrefix({ text: body, chars: at });
    if (revealed(cut, secret, { piece: 5 }).length > 0)
      failures.push(`cut at ${at}: ${JSON.stringify(secret)} in ${JSON.stringify(body)} -> ${JSON.stringify(cut)}`);
  }
  expect(failures.slice(0, 10)).toEqual([]);
});
