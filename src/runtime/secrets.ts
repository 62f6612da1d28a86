// Secrets never appear in what the model or the operator sees: every credential value in use is masked wherever
// it shows, in each form it can take on the wire (as is, percent-encoded, base64 as in HTTP basic).

export const MASK = "****";

/** The forms a secret value takes in requests: raw, percent-encoded, base64. */
export function secretForms(secrets: string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue; // masking "1" or "ab" would mangle ordinary text without hiding anything
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(Buffer.from(secret).toString("base64"));
  }
  // Longest first, so a form that contains another is masked whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

export function maskText(text: string, secrets: string[]): string {
  let masked = text;
  for (const form of secretForms(secrets)) masked = masked.replaceAll(form, MASK);
  return masked;
}

/** A copy of a JSON value with every string masked. */
export function maskValue<T>(value: T, secrets: string[]): T {
  if (secrets.length === 0) return value;
  const forms = secretForms(secrets);
  const walk = (item: unknown): unknown => {
    if (typeof item === "string") {
      let masked = item;
      for (const form of forms) masked = masked.replaceAll(form, MASK);
      return masked;
    }
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === "object") return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, walk(v)]));
    return item;
  };
  return walk(value) as T;
}
