// Texts not yet published (the console's Author page): checked as `validate` and publish check them (checkSource,
// the same validator, errors at line and column), and loaded as a catalog of their own, named as the registry would
// name them, so one action can be tried against the API before anything is published. Console admins write them,
// so whatever the registry's mode, a draft is namespaced after its name, reads files only inside the registry
// directory (none without one) and uses only the secrets assigned to its namespace (settings `registrySecrets`).

import { join } from "node:path";
import { UserError } from "../catalog/errors.js";
import type { SecretAssignments } from "../catalog/secret-assignments.js";
import type { Catalog } from "../catalog/types.js";
import type { LoadOptions } from "../load/sources.js";
import { checkSource, loadFromBytes, refuseErrors } from "./load.js";
import { checkSourceName } from "./source-name.js";
import type { SourceError } from "./status.js";

/** A source's text as an admin writes it, and the file name it would be published under. */
export interface Draft {
  name: string;
  text: string;
}

export class Drafts {
  constructor(
    private readonly options: {
      /** How the registry loads its sources (base URL, filters…); `{}` without a registry. */
      load: () => LoadOptions;
      /** The registry's directory: messages name the file as it will be, and files are read only inside it. */
      dir?: string;
      /** What drafts may use, by namespace. */
      assignments: SecretAssignments;
      /** Why a draft named so could not be published (another source has its namespace), if so. */
      taken?: (name: string) => string | undefined;
    },
  ) {}

  /** Its errors, none when it may be published. */
  async check(draft: Draft): Promise<SourceError[]> {
    const source = this.source(draft);
    const taken = this.options.taken?.(draft.name);
    const errors = await checkSource({ source, options: this.loadOptions() });
    return taken ? [{ message: taken, file: source.path }, ...errors] : errors;
  }

  /** The catalog of this text alone; a UserError (with every error's place) when it has errors. */
  async catalog(draft: Draft): Promise<Catalog> {
    const source = this.source(draft);
    // Not tried under a namespace another source has: its tools would be that source's, with its credentials.
    const taken = this.options.taken?.(draft.name);
    if (taken) throw new UserError({ code: "E_NAMESPACE", message: taken });
    const catalog = await loadFromBytes({ sources: [source], options: this.loadOptions() });
    refuseErrors(catalog);
    return catalog;
  }

  private loadOptions(): LoadOptions {
    const { dir, assignments } = this.options;
    return {
      ...this.options.load(),
      namespaceEach: true,
      confined: dir !== undefined ? { dir } : {},
      secretAssignments: assignments,
    };
  }

  private source({ name, text }: Draft): { path: string; bytes: Buffer } {
    checkSourceName({ name, doing: "check" });
    const { dir } = this.options;
    return { path: dir ? join(dir, name) : name, bytes: Buffer.from(text, "utf8") };
  }
}
