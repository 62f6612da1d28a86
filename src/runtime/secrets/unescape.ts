// The escapes a secret can hide behind in text, undone one layer at a time so the masker can look for the secret
// itself: percent-encoding (`%2F`, `%2f`), JSON and JavaScript escapes (`\/`, `\u002F`, `\x2f`), HTML character
// references (`&sol;`, `&#47;`, `&#x2F;`). Each layer keeps a map back to the text it came from, so whatever is found
// in it is masked where it stands, whole escapes included.

/** Where an escape begins: a text without any of these has nothing to undo. */
export const ESCAPE_START = /[%\\&]/;

const SHORT: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "0": "\0" };

/** HTML's names for ASCII characters (and the no-break space); HTML reads the capitalised four without `;` too. */
const NAMED: Record<string, string> = {
  Tab: "\t",
  NewLine: "\n",
  nbsp: "\u00a0",
  NonBreakingSpace: "\u00a0",
  excl: "!",
  quot: '"',
  QUOT: '"',
  num: "#",
  dollar: "$",
  percnt: "%",
  amp: "&",
  AMP: "&",
  apos: "'",
  lpar: "(",
  rpar: ")",
  ast: "*",
  midast: "*",
  plus: "+",
  comma: ",",
  period: ".",
  sol: "/",
  colon: ":",
  semi: ";",
  lt: "<",
  LT: "<",
  equals: "=",
  gt: ">",
  GT: ">",
  quest: "?",
  commat: "@",
  lsqb: "[",
  lbrack: "[",
  bsol: "\\",
  rsqb: "]",
  rbrack: "]",
  Hat: "^",
  lowbar: "_",
  UnderBar: "_",
  grave: "`",
  DiacriticalGrave: "`",
  lcub: "{",
  lbrace: "{",
  verbar: "|",
  vert: "|",
  VerticalLine: "|",
  rcub: "}",
  rbrace: "}",
};
const WITHOUT_SEMICOLON = new Set(["amp", "AMP", "lt", "LT", "gt", "GT", "quot", "QUOT"]);

function decodeOne(sequence: string): string | undefined {
  const first = sequence[0];
  if (first === "%") return String.fromCharCode(Number.parseInt(sequence.slice(1), 16));
  if (first === "\\") {
    const kind = sequence[1]!;
    if (sequence.length > 2) return String.fromCharCode(Number.parseInt(sequence.slice(2), 16));
    return SHORT[kind] ?? kind;
  }
  const body = sequence.endsWith(";") ? sequence.slice(1, -1) : sequence.slice(1);
  if (body[0] === "#") {
    const code =
      body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
    return code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? undefined : String.fromCodePoint(code);
  }
  if (!sequence.endsWith(";") && !WITHOUT_SEMICOLON.has(body)) return undefined;
  return Object.hasOwn(NAMED, body) ? NAMED[body] : undefined;
}

/** Escapes seen before, decoded: a body repeats the same few many times. */
const decoded = new Map<string, string | undefined>();

/** One layer of escapes undone, with the way back to the text it came from. */
export class Layer {
  private constructor(
    readonly text: string,
    /** Flat quadruples, in order: where each undone escape is in `text`, where it was, its length there and here. */
    private readonly escapes: number[],
  ) {}

  /** `text` with every escape `pattern` finds undone; undefined when there was none. */
  static of(text: string, pattern: RegExp): Layer | undefined {
    const escapes: number[] = [];
    let shift = 0;
    const undone = text.replace(pattern, (sequence: string, at: number) => {
      let char = decoded.get(sequence);
      if (char === undefined && !decoded.has(sequence)) {
        char = decodeOne(sequence);
        if (decoded.size >= 4_096) decoded.clear();
        decoded.set(sequence, char);
      }
      if (char === undefined) return sequence;
      escapes.push(at + shift, at, sequence.length, char.length);
      shift += char.length - sequence.length;
      return char;
    });
    return escapes.length === 0 ? undefined : new Layer(undone, escapes);
  }

  /** Where the character at `index` of this layer begins in the text it came from. */
  start(index: number): number {
    const i = this.escapeAtOrBefore(index);
    if (i < 0) return index;
    const [here, there, thereLength, hereLength] = this.escapes.slice(i, i + 4) as [number, number, number, number];
    return index < here + hereLength ? there : there + thereLength + (index - here - hereLength);
  }

  /** Where a span of this layer ending (exclusive) at `index` ends in the text it came from. */
  end(index: number): number {
    if (index === 0) return 0;
    const i = this.escapeAtOrBefore(index - 1);
    if (i < 0) return index;
    const [here, there, thereLength, hereLength] = this.escapes.slice(i, i + 4) as [number, number, number, number];
    return index - 1 < here + hereLength ? there + thereLength : there + thereLength + (index - here - hereLength);
  }

  /** The offset (in `escapes`) of the last escape that starts at or before `index` in this layer, or -1. */
  private escapeAtOrBefore(index: number): number {
    let low = 0;
    let high = this.escapes.length / 4 - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.escapes[middle * 4]! <= index) {
        found = middle * 4;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }
}

const patterns = new Map<string, RegExp>();

/**
 * The escapes worth undoing when looking for forms made of `alphabet`: those of its characters and of the three
 * that begin escapes (so `%252F`, `&amp;#47;` and `\\u002f` come undone a layer later). Any other escape cannot be
 * part of a form, so it is left as it is: text full of `\"` or `&nbsp;` costs no more than plain text.
 */
export function escapesOf(alphabet: string): RegExp {
  let pattern = patterns.get(alphabet);
  if (pattern) return pattern;
  const chars = [...new Set(`${alphabet}%\\&`)];
  const ascii = chars.filter((c) => c.charCodeAt(0) < 0x80).map((c) => c.charCodeAt(0).toString(16).padStart(2, "0"));
  const wide = chars
    .filter((c) => c.length === 1 && c.charCodeAt(0) >= 0x80)
    .map((c) => c.charCodeAt(0).toString(16).padStart(4, "0"));
  const units = [...ascii.map((hex) => `00${hex}`), ...wide];
  const codes = chars.map((c) => c.codePointAt(0)!);
  const names = Object.keys(NAMED).filter((name) => chars.includes(NAMED[name]!));
  const short = Object.keys(SHORT).filter((key) => chars.includes(SHORT[key]!));
  const plain = chars.filter((c) => (c.length === 1 && !/[0-9a-zA-Z]/.test(c)) || c === "\\");
  const alternatives = [
    ascii.length > 0 ? `%(?:${ascii.join("|")})` : "",
    `\\\\(?:u(?:${units.join("|")})|x(?:${ascii.join("|")})${short.length + plain.length > 0 ? `|[${[...short, ...plain].map(escapeClass).join("")}]` : ""})`,
    `&#x0*(?:${codes.map((code) => code.toString(16)).join("|")})(?![0-9a-f]);?`,
    `&#0*(?:${codes.map(String).join("|")})(?![0-9]);?`,
    names.length > 0 ? `&(?:${names.join("|")})(?![a-zA-Z0-9]);?` : "",
  ].filter(Boolean);
  pattern = new RegExp(alternatives.join("|"), "gi");
  if (patterns.size > 256) patterns.clear();
  patterns.set(alphabet, pattern);
  return pattern;
}

function escapeClass(char: string): string {
  return /[\\\]^-]/.test(char) ? `\\${char}` : char;
}
