// An OpenAPI discriminator on oneOf/anyOf of `$ref`s: each converted branch is told the discriminator value(s) that
// select it, so the model sees which value goes with which shape. The keyword itself is not JSON Schema.

import { isObject, localRefPointer } from "../pointer.js";

/** Adds the selecting property to each branch of `out` that a raw `$ref` branch of `raw` names. */
export function markDiscriminatedBranches({
  raw,
  out,
}: {
  raw: Record<string, unknown>;
  out: Record<string, unknown>;
}): void {
  const discriminator = raw.discriminator;
  if (!isObject(discriminator) || typeof discriminator.propertyName !== "string") return;
  const property = discriminator.propertyName;
  const mapping = isObject(discriminator.mapping) ? discriminator.mapping : {};
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const rawBranches = raw[keyword];
    const branches = out[keyword];
    if (!Array.isArray(rawBranches) || !Array.isArray(branches)) continue;
    rawBranches.forEach((branch, i) => {
      if (!isObject(branch) || typeof branch.$ref !== "string") return;
      const target = localRefPointer(branch.$ref);
      if (target === undefined) return;
      const name = target.slice(target.lastIndexOf("/") + 1);
      const values = Object.entries(mapping)
        .filter(
          ([, ref]) =>
            typeof ref === "string" && (ref === branch.$ref || ref === name || localRefPointer(ref) === target),
        )
        .map(([value]) => value);
      if (values.length === 0) values.push(name);
      const selector = values.length === 1 ? { const: values[0] } : { enum: values };
      branches[i] = {
        ...(branches[i] as object),
        type: "object",
        properties: Object.fromEntries([[property, selector]]),
        required: [property],
      };
    });
  }
}
