// Which secrets a registry source or a console draft may use (settings `registrySecrets`), and where they may go.
// Console admins write those sources, so the server's environment, files and credential processes are not theirs
// to name: a source reads only what the operator assigned to its namespace, and its requests carrying a credential
// go only to the origins assigned with it (else an admin could point a rightly assigned key at their own host by
// rewriting the source). Sources the operator names on the command line are not restricted. Pure: the loader
// reports what a source would read at check time, the engine refuses it where values are read.

import { UserError } from "./errors.js";

/** A namespace's assignment as the settings file writes it. */
export interface RegistrySecrets {
  /** Environment variable names, `file:/path` and `cmd:NAME` references. */
  secrets: string[];
  /** `scheme://host[:port]` the source's credentials may be sent to (its servers, its token URLs). */
  origins: string[];
}

export interface AssignmentsGiven {
  /** The settings file's `registrySecrets`, by namespace id. */
  registrySecrets?: Record<string, RegistrySecrets>;
  /** The settings file, for messages (none: a settings file must be given to assign anything). */
  file?: string;
  /** Scheme ids (`widgets.oauth`) whose value each caller brings (`credentials.<id>.perUser`): no variable is read. */
  perUser?: string[];
}

export class SecretAssignments {
  private readonly scopes = new Map<string, SecretScope>();

  constructor(private readonly given: AssignmentsGiven = {}) {
    for (const [namespace, assigned] of Object.entries(given.registrySecrets ?? {}))
      this.scopes.set(namespace, new SecretScope({ namespace, assigned, file: given.file }));
  }

  /** What the source of this namespace may read, and where to. */
  scope(namespace: string): SecretScope {
    return this.scopes.get(namespace) ?? new SecretScope({ namespace, file: this.given.file });
  }

  /** Whether the scheme's value comes from each caller rather than from a variable. */
  perUser(schemeId: string): boolean {
    return this.given.perUser?.includes(schemeId) ?? false;
  }
}

export class SecretScope {
  readonly namespace: string;
  private readonly secrets: Set<string>;
  private readonly origins: Set<string>;
  private readonly place: string;

  constructor({
    namespace,
    assigned,
    file,
  }: { namespace: string; assigned?: RegistrySecrets; file?: string | undefined }) {
    this.namespace = namespace;
    this.secrets = new Set(assigned?.secrets ?? []);
    const key = `registrySecrets.${namespace}`;
    this.place = file ? `the settings file's ${key} (${file})` : `${key} in a settings file (--config)`;
    this.origins = new Set(
      (assigned?.origins ?? []).map((origin, i) => {
        const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
        if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.replace(/\/+$/, ""))
          throw new UserError({
            code: "E_SETTINGS",
            message: `${file ?? "settings"}#/registrySecrets/${namespace}/origins/${i}: '${origin}' is not an origin (scheme://host[:port], nothing after it)`,
          });
        return parsed.origin;
      }),
    );
  }

  /** Whether the source may read this variable (`NAME`) or reference (`file:/path`, `cmd:NAME`). */
  allows(reference: string): boolean {
    return this.secrets.has(reference);
  }

  /** The environment as the source sees it: the variables assigned to it, none other. */
  environment(env: Record<string, string | undefined>): Record<string, string | undefined> {
    const seen: Record<string, string | undefined> = {};
    for (const name of this.secrets) if (!name.includes(":") && Object.hasOwn(env, name)) seen[name] = env[name];
    return seen;
  }

  /** Whether a request carrying the source's credentials may go to this URL's origin. */
  allowsOrigin(url: string): boolean {
    return URL.canParse(url) && this.origins.has(new URL(url).origin);
  }

  /** The refusal of a read not assigned: names the settings key that would assign it. */
  unassigned(reference: string): string {
    return `${reference.includes(":") ? `\${${reference}}` : reference} is not assigned to the source '${this.namespace}': ${this.place} lists the secrets it may use (secrets: [${reference}])`;
  }

  /** The refusal of credentials sent elsewhere: names the settings key that would allow it. */
  offOrigin(url: string): string {
    const origin = URL.canParse(url) ? new URL(url).origin : url;
    return `${origin} is not an origin the source '${this.namespace}' may send its credentials to: ${this.place} lists them (origins: [${origin}])`;
  }
}
