// What `serve` says once at start about the source and its callers, before the first request.

import { plural } from "../catalog/plural.js";
import type { ServeOptions } from "./serve-options.js";
import type { EngineSetup } from "./setup.js";

export function warnAtStart({
  setup,
  options,
  stdio,
  log,
}: {
  setup: EngineSetup;
  options: ServeOptions;
  stdio: boolean;
  log: (line: string) => void;
}): void {
  const perUser = setup.engine.userSchemeIds();
  if (perUser.length > 0 && (stdio || !options.auth))
    log(
      `openapi-mcp: warning: ${perUser.join(", ")} take${perUser.length === 1 ? "s" : ""} each caller's own credential (credentials.<scheme>.perUser), and ${stdio ? "stdio" : "HTTP without --auth"} has no verified caller: calls needing ${perUser.length === 1 ? "it" : "them"} will say so and send nothing (serve over HTTP with --auth)`,
    );
  const warnings = setup.catalog.diagnostics.length;
  if (warnings > 0)
    log(`openapi-mcp: ${warnings} warning${plural(warnings)} about the source; \`openapi-mcp validate\` lists them`);
}
