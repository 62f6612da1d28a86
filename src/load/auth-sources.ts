// Which source each `--auth` and settings `auth` entry is for. One source: every entry is its own. Several sources
// or a manifest: `--auth` takes a `source-id=` prefix and a settings key is `<source-id>.<scheme>`; an entry that
// names no source, or one there is not, stops loading with the choices named.

import { UserError } from "../catalog/errors.js";
import { defineOwn } from "../catalog/own.js";
import { joinPointer } from "../catalog/pointer.js";
import type { CredentialOverride } from "../catalog/security.js";
import { authEntries, parseAuthOption } from "./auth.js";
import type { Environment } from "../catalog/variables.js";

export interface AuthGiven {
  /** `--auth` values. */
  options?: string[];
  /** A settings file's `auth`, already checked against its schema. */
  settings?: { file: string; auth: Record<string, unknown> };
  env: Environment;
}

export class GivenAuth {
  private readonly options: ReturnType<typeof parseAuthOption>[];
  private ids: string[] = [""];

  constructor(private readonly given: AuthGiven) {
    // Parsed at once: a malformed --auth stops the command before any document is read.
    this.options = (given.options ?? []).map((text) => parseAuthOption(text, given.env));
  }

  /** Checks every entry against the sources being loaded ("" alone for a single source that is not a manifest). */
  check(ids: string[]): void {
    this.ids = ids;
    const several = ids.length > 1 || ids[0] !== "";
    const choices = `${ids.join(", ")} (e.g. ${ids[0]}=bearer:VAR)`;
    for (const option of this.options) {
      if (!several && option.source !== undefined) {
        throw new UserError({
          code: "E_OPTION",
          message: `--auth ${option.source}=${option.kind}:…: a source-id= prefix picks one of several sources or of a manifest; with one source, leave it out`,
        });
      }
      if (several && option.source === undefined) {
        throw new UserError({
          code: "E_OPTION",
          message: `--auth ${option.kind}:…: with several sources, say which one it is for with a source-id= prefix: ${choices}`,
        });
      }
      if (several && !ids.includes(option.source!)) {
        throw new UserError({
          code: "E_OPTION",
          message: `--auth ${option.source}=${option.kind}:…: there is no source '${option.source}'; the sources are ${choices}`,
        });
      }
    }
    const settings = this.given.settings;
    if (!settings || !several) return;
    for (const key of Object.keys(settings.auth)) {
      const id = key.slice(0, Math.max(0, key.indexOf(".")));
      if (!ids.includes(id)) {
        throw new UserError({
          code: "E_SETTINGS",
          message: `${settings.file}#${joinPointer("/auth", key)}: with several sources, name a scheme as <source-id>.<scheme>, with a source id of ${ids.join(", ")}`,
        });
      }
    }
  }

  /** One source's entries: its manifest's, a settings file's over those, the command line's instead of both. */
  forSource(id: string, manifest?: Record<string, CredentialOverride>): Record<string, CredentialOverride> | undefined {
    const several = this.ids.length > 1 || this.ids[0] !== "";
    const options = this.options.filter((o) => (several ? o.source === id : true));
    if (options.length > 0) {
      const entries: Record<string, CredentialOverride> = {};
      for (const option of options) {
        // Schemes given on the command line are named after their kind: bearer, header, header2, …
        let name = option.kind;
        for (let n = 2; Object.hasOwn(entries, name); n++) name = `${option.kind}${n}`;
        entries[name] = option.entry;
      }
      return entries;
    }
    const settings = this.given.settings;
    const prefix = several ? `${id}.` : "";
    const fromSettings = Object.fromEntries(
      Object.entries(settings?.auth ?? {})
        .filter(([key]) => key.startsWith(prefix))
        .map(([key, value]) => [key.slice(prefix.length), { key, value }]),
    );
    if (!settings || Object.keys(fromSettings).length === 0) return manifest;
    const result: Record<string, CredentialOverride> = { ...manifest };
    for (const [scheme, { key, value }] of Object.entries(fromSettings)) {
      const entry = authEntries({ [key]: value }, { file: settings.file, pointer: "/auth" })[key];
      if (entry) defineOwn(result, scheme, entry);
    }
    return result;
  }
}
