// A server with profiles: one view of the engine per profile (its tools, policies and budgets, engine.withProfile),
// each served by its own provider (a serialized listing, or dynamic mode's three tools over that profile's tools),
// built on first use and kept, so each profile's listing is serialized once. The binding asks forCaller() which
// provider answers a request; a tool outside a caller's profile does not exist for that caller.

import { UserError } from "../../catalog/errors.js";
import { parseFilters, toolPasses } from "../../catalog/filter.js";
import type { Settings } from "../../catalog/settings.js";
import type { Tool } from "../../catalog/types.js";
import type { Engine } from "../engine.js";
import { knownPolicyEntries } from "../reload.js";
import { PolicyError } from "../approvals/policy.js";
import { type ProfileTable, profileOf, profileTable } from "./profiles.js";
import { DelegatingProvider } from "../engine/delegating-provider.js";
import type { Caller, ServedProvider } from "../types.js";

/**
 * The provider for a server with `settings.profiles`, each profile's provider made by `build` from its engine; or
 * undefined when there are no profiles (then `build(engine)` serves everyone, as before profiles).
 */
export function profiledProvider({
  engine,
  settings,
  build,
  unverified,
  gone,
}: {
  engine: Engine;
  settings: Settings | undefined;
  build: (engine: Engine) => ServedProvider;
  /** How the server is reached when no caller is verified (`stdio`, `HTTP without --auth`); absent: callers are. */
  unverified?: string;
  /**
   * A registry's reload: a profile's policy entry naming a tool the catalog no longer has is told here and left
   * out, instead of refusing (reload.ts).
   */
  gone?: (line: string) => void;
}): ProfiledProvider | undefined {
  const table = profileTable(settings);
  if (!table) return undefined;
  // Without a verified caller nothing matches a profile: without a default, every request would be refused.
  if (table.defaultProfile === undefined && unverified !== undefined)
    throw new UserError({
      code: "E_SETTINGS",
      message: `${table.file}: profiles without defaultProfile match verified callers only, and ${unverified} has none, so every request would be refused: set defaultProfile, or serve over HTTP with endpoint auth`,
    });
  const engines = new Map(
    Object.keys(table.profiles).map((name) => [
      name,
      profileEngine({ engine, table, name, ...(gone ? { gone } : {}) }),
    ]),
  );
  return new ProfiledProvider({ table, provider: (name) => build(engines.get(name)!) });
}

/** One profile's engine, its filters and policies checked now (a mistake stops the start, naming its place). */
function profileEngine({
  engine,
  table,
  name,
  gone,
}: {
  engine: Engine;
  table: ProfileTable;
  name: string;
  gone?: (line: string) => void;
}): Engine {
  const profile = table.profiles[name]!;
  const place = `${table.file}#/profiles/${name}`;
  const entries = Object.entries(profile.policy ?? {}).map(([target, decision]) => `${target}=${decision}`);
  const policy = gone
    ? knownPolicyEntries({
        entries,
        names: new Set(engine.listToolNames()),
        warn: (entry) =>
          gone(
            `openapi-mcp: warning: ${place}/policy: '${entry}' names a tool the catalog no longer has; ignored while it is gone`,
          ),
      })
    : entries;
  const filters = parseFilters({ include: profile.include ?? [], exclude: profile.exclude ?? [], place });
  const tools = (tool: Tool): boolean => toolPasses(tool, filters);
  try {
    return engine.withProfile({
      name,
      tools,
      policy,
      ...(profile.rateLimits ? { budgets: profile.rateLimits } : {}),
      ...(profile.inFlight ? { inFlight: profile.inFlight } : {}),
      ...(profile.credentials ? { userSchemes: userSchemesOf({ engine, listed: profile.credentials, place }) } : {}),
    });
  } catch (error) {
    if (error instanceof PolicyError)
      throw new UserError({ code: "E_SETTINGS", message: `${place}/policy: ${error.message}` });
    throw error;
  }
}

export class ProfiledProvider extends DelegatingProvider {
  private readonly built = new Map<string, ServedProvider>();

  constructor(private readonly options: { table: ProfileTable; provider: (name: string) => ServedProvider }) {
    super();
  }

  /** The provider of the caller's profile (none: stdio, no endpoint auth); throws ProfileRefused for no profile. */
  override forCaller(caller: Caller | undefined): ServedProvider {
    const name = profileOf({ table: this.options.table, caller });
    let provider = this.built.get(name);
    if (!provider) {
      provider = this.options.provider(name);
      this.built.set(name, provider);
    }
    return provider;
  }

  override perCaller(): boolean {
    return true;
  }

  // What is served does not change (a registry swaps this whole provider), and no listing is one for every caller:
  // asked of the profile of no caller, these would refuse where there is no default profile.
  override changing(): boolean {
    return false;
  }

  override onListChanged(): () => void {
    return () => {};
  }

  override listingJson(): undefined {
    return undefined;
  }

  /** The profile a caller gets, by name (for logs and tests); throws ProfileRefused as forCaller does. */
  profileOf(caller: Caller | undefined): string {
    return profileOf({ table: this.options.table, caller });
  }

  /** Each call goes to its caller's profile; listing and lookups to the profile of no caller. */
  protected target(caller?: Caller): ServedProvider {
    return this.forCaller(caller);
  }
}

/**
 * The per-user schemes a profile's `credentials` lists: its callers bring their own value for these; for the
 * server's other per-user schemes they act with the server's own (environment or settings) value.
 */
function userSchemesOf({ engine, listed, place }: { engine: Engine; listed: string[]; place: string }): string[] {
  const perUser = engine.userSchemeIds();
  listed.forEach((id, index) => {
    if (!perUser.includes(id))
      throw new UserError({
        code: "E_SETTINGS",
        message: `${place}/credentials/${index}: '${id}' is not a per-user scheme (credentials.<scheme>.perUser): ${perUser.length > 0 ? `those are ${perUser.join(", ")}` : "there are none"}`,
      });
  });
  return listed;
}
