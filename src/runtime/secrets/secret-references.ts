// `${file:PATH}` and `${cmd:NAME}`: references to secrets kept where platforms keep them (a mounted file, a secret
// manager's command-line client), read when a call needs them rather than when the server starts, so a rotated
// secret is used without a restart. They stand wherever `${VAR}` may, and in the values `${VAR}`s expand to.

import { SECRET_REFERENCE } from "../../catalog/secret-reads.js";

/** One reference, as the audit line names it: `file:/run/secrets/api_key`, `cmd:vault`. */
export type SecretReference = `file:${string}` | `cmd:${string}`;

const REFERENCE = SECRET_REFERENCE;
/** A credential process's name in settings `secrets:`. */
export const COMMAND_NAME = /^[A-Za-z0-9_.-]+$/;

export function referencesIn(text: string): SecretReference[] {
  return [...text.matchAll(REFERENCE)].map((match) => `${match[1]}:${match[2]}` as SecretReference);
}

export function hasReference(text: string): boolean {
  return referencesIn(text).length > 0;
}

/** The text with each reference replaced by what `resolve` gives for it (each resolved once). */
export async function replaceReferences({
  text,
  resolve,
}: {
  text: string;
  resolve: (reference: SecretReference) => Promise<string>;
}): Promise<string> {
  const references = [...new Set(referencesIn(text))];
  if (references.length === 0) return text;
  const values = new Map(await Promise.all(references.map(async (r) => [r, await resolve(r)] as const)));
  return text.replace(REFERENCE, (_, kind: string, rest: string) => values.get(`${kind}:${rest}` as SecretReference)!);
}

/** Why a secret could not be had; names the reference, never a value. The call it was for is not sent. */
export class SecretUnavailable extends Error {
  readonly reference: SecretReference;
  constructor({ reference, why }: { reference: SecretReference; why: string }) {
    super(`secret ${reference}: ${why}`);
    this.name = "SecretUnavailable";
    this.reference = reference;
  }
}
