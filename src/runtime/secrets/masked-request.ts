// A prepared request as a person may read it (`openapi-mcp call`, the console's Try it and Author pages): every
// configured secret masked, Authorization's value hidden, a long body cut after masking.

import { credentialVariables } from "../../catalog/security.js";
import type { Catalog } from "../../catalog/types.js";
import type { Environment } from "../credentials/credentials.js";
import { MASK, Masker, maskText } from "./secrets.js";
import type { PreparedRequest } from "../types.js";

const BODY_SHOWN = 4_000;

/** Every configured credential value: masked wherever it would show (here and in the console's answers). */
export function secretsOf(catalog: Catalog, env: Environment): string[] {
  const values = Object.values(catalog.credentials).flatMap((credential) =>
    credentialVariables(credential).map((name) => env[name]),
  );
  return values.filter((v): v is string => typeof v === "string" && v.length > 0);
}

export function describeRequest(request: PreparedRequest, secrets: string[], placeholders: string[] = []): string {
  let target = `${request.origin}${request.path}`;
  // A placeholder in the query or a cookie was percent-encoded like a value; it reads better as written.
  for (const placeholder of placeholders) target = target.replaceAll(encodeURIComponent(placeholder), placeholder);
  const lines = [`${request.method} ${target}`];
  for (const [name, value] of Object.entries(request.headers)) {
    const [scheme = "", ...rest] = value.split(" ");
    // Authorization carries credentials even when its value is derived (basic = base64 of user:password); a
    // placeholder for an unset one is no secret.
    const shown =
      name !== "authorization" ? value : placeholders.includes(rest.join(" ")) ? value : `${scheme} ${MASK}`;
    lines.push(`${name}: ${placeholders.reduce((text, p) => text.replaceAll(encodeURIComponent(p), p), shown)}`);
  }
  if (request.body && request.body.length > 0) {
    const text = Buffer.from(request.body).toString("utf8");
    // Masked before it is cut, so the cut cannot fall inside a secret.
    const shown = new Masker(secrets).clip(text, BODY_SHOWN);
    lines.push("", shown.cut ? `${shown.text}… (${request.body.length} bytes)` : shown.text);
  }
  return maskText(lines.join("\n"), secrets);
}
