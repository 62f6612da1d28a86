// Secrets never appear in what the model or the operator sees: every credential value in use is masked wherever it
// shows, in every equivalent form (any case; percent-, form-, JSON- and HTML-escaped, in layers; hex; base64 and
// base64url at any alignment; UTF-16 in bytes), in response bodies before anything reads them (as bytes and as the
// text they decode to), and in every string and key of a result.
//
// What a caller sees never depends on whether a guess matches part of a secret: only a complete form is masked, and
// it is looked for in all the text there is (past a cut too), then the text is cut where lengths alone say. A `****`
// of ours across the cut may move it, since it stands for a complete form; a piece of a form never does. (Dropping a
// trailing piece at a cut told the caller, a guess placed there at a time, whether the guess began the secret.)

import { type Forms, latin1Forms, MIN_SECRET_CHARS, textForms } from "./secret-forms.js";
import { ESCAPE_START, Layer } from "./unescape.js";

export const MASK = "****";
const MASK_BYTES = Buffer.from(MASK);
/** Escapes inside escapes (`%252F`, `&amp;#47;`, `\\u002f`) are undone this many times over. */
const MAX_LAYERS = 3;
/** How much longer than the secret its longest escaped form can be (`&#x2F;` in UTF-16 is 12 bytes a character). */
const LONGEST_FORM_FACTOR = 16;

const made = new Map<string, { forText: Forms; forBytes: Forms }>();

/** The masking for one set of secret values; build one per call and use it for everything the call shows. */
export class Masker {
  private readonly forText: Forms;
  private readonly forBytes: Forms;
  /** No text shorter than this can hold a form (escaped forms are longer still). */
  private readonly shortest: number;
  /** Read this many bytes past a limit, so a form that straddles it is seen whole before the cut. */
  readonly lookaheadBytes: number;
  /** Every secret is ASCII: its forms in text are the same bytes in any ASCII-compatible charset. */
  readonly asciiSecrets: boolean;

  constructor(secrets: readonly string[]) {
    const key = JSON.stringify(secrets);
    let cached = made.get(key);
    if (!cached) {
      // A server masks for the same few secrets call after call: their forms are worked out once.
      if (made.size >= 64) made.clear();
      cached = { forText: textForms(secrets), forBytes: latin1Forms(secrets) };
      made.set(key, cached);
    }
    this.forText = cached.forText;
    this.forBytes = cached.forBytes;
    const all = [...this.forBytes.anyCase, ...this.forBytes.exact];
    this.shortest = all.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...all.map((form) => form.length));
    const usable = secrets.filter((s) => s.length >= MIN_SECRET_CHARS);
    this.lookaheadBytes = Math.max(0, ...usable.map((s) => Buffer.byteLength(s))) * LONGEST_FORM_FACTOR;
    this.asciiSecrets = usable.every((s) => /^[\0-\x7f]*$/.test(s));
  }

  get active(): boolean {
    return this.shortest !== Number.POSITIVE_INFINITY;
  }

  /** The text with every form of every secret replaced by the mask. */
  maskText(text: string): string {
    return this.maskedPrefix({ text, chars: text.length });
  }

  /**
   * The first `chars` characters of `text`, masked. Forms are looked for in all of `text` (which should run on past
   * the cut by `lookaheadBytes`), so one that begins before the cut is masked whole, and the rest is cut at `chars`,
   * whatever it ends with.
   */
  maskedPrefix({ text, chars }: { text: string; chars: number }): string {
    if (text.length < this.shortest) return chars >= text.length ? text : text.slice(0, chars);
    const kept = keep(find(text, this.forText), chars);
    let masked = "";
    let from = 0;
    for (let i = 0; i < kept.length; i += 2) {
      masked += text.slice(from, kept[i]) + MASK;
      from = kept[i + 1]!;
    }
    if (from < chars) masked += text.slice(from, chars);
    return masked;
  }

  /** Bytes with every form replaced, whatever charset they are in: for bodies, before they are parsed. */
  maskBytes(bytes: Buffer): Buffer {
    return this.maskedBytePrefix({ bytes, length: bytes.length });
  }

  /** `maskedPrefix` for bytes: at most `length` of them, a form that begins before the cut masked whole. */
  maskedBytePrefix({ bytes, length }: { bytes: Buffer; length: number }): Buffer {
    if (bytes.length < this.shortest) return length >= bytes.length ? bytes : bytes.subarray(0, length);
    const kept = keep(find(bytes.toString("latin1"), this.forBytes), length);
    const parts: Buffer[] = [];
    let from = 0;
    for (let i = 0; i < kept.length; i += 2) {
      parts.push(bytes.subarray(from, kept[i]), MASK_BYTES);
      from = kept[i + 1]!;
    }
    if (from < length) parts.push(bytes.subarray(from, length));
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  /** A copy of a JSON value with every string, and every object key, masked. */
  maskValue<T>(value: T): T {
    if (!this.active) return value;
    const walk = (item: unknown): unknown => {
      if (typeof item === "string") return this.maskText(item);
      if (Array.isArray(item)) return item.map(walk);
      if (item !== null && typeof item === "object")
        return Object.fromEntries(Object.entries(item).map(([k, v]) => [this.maskText(k), walk(v)]));
      return item;
    };
    return walk(value) as T;
  }

  /** Masked text cut to at most `maxChars` (masked first, then cut); `cut` says if it was. */
  clip(text: string, maxChars: number): { text: string; cut: boolean } {
    const spans = text.length < this.shortest ? [] : find(text, this.forText);
    let masked = "";
    let from = 0;
    /** Where each mask of ours begins in `masked`. */
    const masks: number[] = [];
    for (let i = 0; i < spans.length; i += 2) {
      masked += text.slice(from, spans[i]);
      masks.push(masked.length);
      masked += MASK;
      from = spans[i + 1]!;
    }
    masked += text.slice(from);
    if (masked.length <= maxChars) return { text: masked, cut: false };
    // Not inside a mask of ours either (`secret=**…` would look like a piece of the value): it goes whole.
    const across = masks.find((at) => at < maxChars && at + MASK.length > maxChars);
    return { text: masked.slice(0, across ?? maxChars), cut: true };
  }
}

/** The spans (flat [start, end) pairs) that begin before `length`; one that straddles it is kept whole. */
function keep(spans: number[], length: number): number[] {
  let count = 0;
  while (count < spans.length && spans[count]! < length) count += 2;
  return count === spans.length ? spans : spans.slice(0, count);
}

/** Wherever a masker is not at hand: one made for these secrets. */
export function maskText(text: string, secrets: readonly string[]): string {
  return new Masker(secrets).maskText(text);
}

export function maskValue<T>(value: T, secrets: readonly string[]): T {
  return new Masker(secrets).maskValue(value);
}

export function maskBytes(bytes: Buffer, secrets: readonly string[]): Buffer {
  return new Masker(secrets).maskBytes(bytes);
}

/** The one way to shorten a message that may carry a secret: masked first, then cut (marked `…`). */
export function maskClipped({
  text,
  secrets,
  maxChars,
}: {
  text: string;
  secrets: readonly string[];
  maxChars: number;
}): string {
  const clipped = new Masker(secrets).clip(text, maxChars);
  return clipped.cut ? `${clipped.text}…` : clipped.text;
}

/** The text and each layer of escapes undone under it, with a way back to positions in the text. */
function* layers(
  text: string,
  escapes: RegExp,
): Generator<{ view: string; start: (i: number) => number; end: (i: number) => number }> {
  let view = text;
  let start = (i: number): number => i;
  let end = (i: number): number => i;
  for (let depth = 0; ; depth++) {
    yield { view, start, end };
    if (depth === MAX_LAYERS || !ESCAPE_START.test(view)) return;
    const layer = Layer.of(view, escapes);
    if (!layer) return;
    const [outerStart, outerEnd] = [start, end];
    start = (i) => outerStart(layer.start(i));
    end = (i) => outerEnd(layer.end(i));
    view = layer.text;
  }
}

/** Where the forms are in `text`: flat [start, end) pairs, sorted, overlaps merged. */
function find(text: string, forms: Forms): number[] {
  const found: Array<[number, number]> = [];
  for (const { view, start, end } of layers(text, forms.escapes)) {
    const lowered = forms.fold(view);
    for (const [haystack, needles] of [
      [lowered, forms.anyCase],
      [view, forms.exact],
    ] as const) {
      for (const needle of needles) {
        for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) {
          found.push([start(at), end(at + needle.length)]);
        }
      }
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  const spans: number[] = [];
  for (const [from, to] of found) {
    const last = spans.length - 1;
    if (last > 0 && from < spans[last]!) spans[last] = Math.max(spans[last]!, to);
    else spans.push(from, to);
  }
  return spans;
}
