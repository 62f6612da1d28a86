// A source's static headers (a manifest's or action definition's `headers`), which alone may name `${VAR}`s and
// `${file:…}`/`${cmd:…}` references: a `${VAR}` in an argument stays literal text.

import type { Environment } from "../credentials/credentials.js";
import type { SecretSources } from "../secrets/secret-sources.js";

/**
 * Static headers may name `${VAR}`s; one whose variable is unset is left out rather than sent with a placeholder.
 * `${file:…}` and `${cmd:…}` in them (or in the variables' values) are read now. Also returns the values substituted,
 * which are masked like credentials, and the references used.
 */
export async function expandStaticHeaders({
  headers,
  env,
  secretSources,
  dryRun,
}: {
  headers: Record<string, string>;
  env: Environment;
  secretSources: SecretSources;
  /** Credential processes are not run: a placeholder stands for what they would give. */
  dryRun: boolean;
}): Promise<{ headers: Record<string, string>; values: string[]; references: string[] }> {
  const expanded: Record<string, string> = {};
  const values: string[] = [];
  const references: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    let missing = false;
    const text = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
      const found = env[variable];
      if (found === undefined) missing = true;
      else values.push(found);
      return found ?? "";
    });
    if (missing) continue;
    const resolved = await secretSources.expand(text, { dryRun });
    values.push(...resolved.values);
    references.push(...resolved.references);
    expanded[name] = resolved.value;
  }
  return { headers: expanded, values, references };
}
