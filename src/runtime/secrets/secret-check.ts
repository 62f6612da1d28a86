// At start, the `${file:…}` and `${cmd:…}` references the tools' credentials and static headers hold: a file that
// is not there (or may not be used) and a credential process the settings do not define stop the start, naming
// where the reference was found. Commands themselves run at their first use.

import { valueSources } from "../../catalog/secret-reads.js";
import type { Catalog } from "../../catalog/types.js";
import type { Environment } from "../credentials/credentials.js";
import type { SecretSources } from "./secret-sources.js";

export function checkSecretReferences({
  catalog,
  env,
  secretSources,
}: {
  catalog: Pick<Catalog, "tools" | "credentials">;
  env: Environment;
  secretSources: SecretSources;
}): void {
  const used = new Set(
    catalog.tools.flatMap((tool) => tool.operation.security.flatMap((a) => a.schemes.map((s) => s.id))),
  );
  for (const [id, scheme] of Object.entries(catalog.credentials)) {
    if (!used.has(id)) continue;
    for (const [field, source] of valueSources(scheme)) {
      const text = "env" in source ? env[source.env] : source.value;
      const from = "env" in source ? `, from ${source.env}` : "";
      if (text) secretSources.check({ text, place: `security scheme '${scheme.name}' (${field}${from})` });
    }
  }
  const seen = new Set<string>();
  for (const tool of catalog.tools) {
    for (const [name, value] of Object.entries(tool.operation.headers ?? {})) {
      const text = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => env[variable] ?? "");
      if (seen.has(text)) continue;
      seen.add(text);
      secretSources.check({ text, place: `the static header ${name} of ${tool.source}` });
    }
  }
}
