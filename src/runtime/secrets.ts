// Secrets never appear in what the model or the operator sees: every credential value in use is masked wherever
// it shows, in each form it can take on the wire (as is, percent- and form-encoded, base64 and base64url, escaped
// in JSON), in response bodies before anything reads them, and in every string and key of a result.

export const MASK = "****";
const MASK_BYTES = Buffer.from(MASK);

/** The forms a secret value takes in requests and in echoes of them, longest first. */
export function secretForms(secrets: string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue; // masking "1" or "ab" would mangle ordinary text without hiding anything
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(new URLSearchParams({ v: secret }).toString().slice(2));
    forms.add(Buffer.from(secret).toString("base64"));
    forms.add(Buffer.from(secret).toString("base64url"));
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  // Longest first, so a form that contains another is masked whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

export function maskText(text: string, secrets: string[]): string {
  let masked = text;
  for (const form of secretForms(secrets)) masked = masked.replaceAll(form, MASK);
  return masked;
}

/** A copy of a JSON value with every string, and every object key, masked. */
export function maskValue<T>(value: T, secrets: string[]): T {
  const forms = secretForms(secrets);
  if (forms.length === 0) return value;
  const text = (item: string): string => {
    let masked = item;
    for (const form of forms) masked = masked.replaceAll(form, MASK);
    return masked;
  };
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") return text(item);
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === "object") return Object.fromEntries(Object.entries(item).map(([k, v]) => [text(k), walk(v)]));
    return item;
  };
  return walk(value) as T;
}

/** Bytes with every form of every secret replaced: for bodies, before they are parsed, encoded or cut. */
export function maskBytes(bytes: Buffer, secrets: string[]): Buffer {
  let masked = bytes;
  for (const form of secretForms(secrets)) {
    const needle = Buffer.from(form);
    let at = masked.indexOf(needle);
    if (at < 0) continue;
    const parts: Buffer[] = [];
    let from = 0;
    while (at >= 0) {
      parts.push(masked.subarray(from, at), MASK_BYTES);
      from = at + needle.length;
      at = masked.indexOf(needle, from);
    }
    parts.push(masked.subarray(from));
    masked = Buffer.concat(parts);
  }
  return masked;
}
