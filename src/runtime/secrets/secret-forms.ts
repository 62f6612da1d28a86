// The literal forms of a secret the masker looks for, once escapes are undone (./unescape.ts): the secret in any
// case, hex of it in any case, and base64 and base64url of it at each of the three alignments it can have inside a
// longer encoded value (`Basic base64(user:secret)`, `base64("key=" + secret)`), case kept. Also, of each, the
// form-encoded and percent-encoded secret, as sent in form bodies and HTTP basic to token endpoints.

/** Values shorter than this are not masked: masking "1" or "ab" would mangle ordinary text without hiding anything. */
export const MIN_SECRET_CHARS = 4;

import { escapesOf } from "./unescape.js";

export interface Forms {
  /** Matched in the text folded: lower-cased (ASCII letters at least). */
  anyCase: string[];
  /** Lower-case, and, when a secret holds a space, a space as `+` (form-encoding's), so mixed spellings match too. */
  fold: (text: string) => string;
  /** Matched as they are. */
  exact: string[];
  /** The escapes to undo before looking (those of the characters the forms are made of). */
  escapes: RegExp;
}

/** Lower-cased without changing the length (so positions carry over), which String#toLowerCase keeps but for `İ`. */
export function lower(text: string): string {
  const lowered = text.toLowerCase();
  return lowered.length === text.length ? lowered : text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** The forms to look for in text. */
export function textForms(secrets: readonly string[]): Forms {
  const anyCase = new Set<string>();
  const exact = new Set<string>();
  for (const secret of usable(secrets)) {
    anyCase.add(lower(secret));
    // Percent-encoded non-ASCII bytes are not undone (./unescape.ts): looked for as they are.
    if (/[^\0-\x7f]/.test(secret))
      anyCase.add(lower(secret.replace(/[^\0-\x7f]+/g, (text) => encodeURIComponent(text))));
    for (const bytes of byteForms(secret)) {
      anyCase.add(bytes.toString("hex"));
      for (const core of base64Cores(bytes)) exact.add(core);
    }
  }
  return forms({ anyCase: [...anyCase], exact: [...exact], secrets });
}

/**
 * The forms to look for in bytes read as Latin-1 (one character a byte): the text forms, and the secret as UTF-8
 * and as UTF-16 (either byte order), so a body is masked whatever charset it says or does not say it has.
 */
export function latin1Forms(secrets: readonly string[]): Forms {
  const { anyCase, exact, escapes } = textForms(secrets);
  const more = new Set(anyCase);
  for (const secret of usable(secrets)) {
    more.add(lower(Buffer.from(secret).toString("latin1")));
    const utf16 = Buffer.from(secret, "utf16le");
    more.add(lower(utf16.toString("latin1")));
    more.add(lower(Buffer.from(utf16).swap16().toString("latin1")));
  }
  // The escapes undone are the text's: the UTF-16 forms are bytes, never escaped (and `%00` undone would hide a
  // secret that holds it).
  return forms({ anyCase: [...more], exact, secrets, escapes });
}

function forms({
  anyCase,
  exact,
  secrets,
  escapes,
}: {
  anyCase: string[];
  exact: string[];
  secrets: readonly string[];
  escapes?: RegExp;
}): Forms {
  const fold = usable(secrets).some((secret) => secret.includes(" "))
    ? (text: string) => lower(text).replaceAll(" ", "+")
    : lower;
  const alphabet = [...new Set([...anyCase, ...anyCase.map((form) => form.toUpperCase()), ...exact].join(""))]
    .sort()
    .join("");
  return { anyCase: [...new Set(anyCase.map(fold))], fold, exact, escapes: escapes ?? escapesOf(alphabet) };
}

function usable(secrets: readonly string[]): string[] {
  return [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_CHARS);
}

/** The secret's bytes as sent: as is, percent-encoded, form-encoded. */
function byteForms(secret: string): Buffer[] {
  const forms = new Set([secret, encodeURIComponent(secret), new URLSearchParams({ v: secret }).toString().slice(2)]);
  return [...forms].map((form) => Buffer.from(form));
}

/**
 * The base64 characters that depend on the secret's bits alone, for each alignment of its first byte in a group of
 * three: whatever comes before or after it, these characters are the same. Also in the base64url alphabet.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const core = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    if (core.length < MIN_SECRET_CHARS) continue;
    cores.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return cores;
}
