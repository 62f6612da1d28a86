// Profiles (settings `profiles:`): which tools a verified caller sees and may call, under which policies and which
// budgets of its own. A profile matches on the caller's claims (a static token's name is its `token` claim; a JWT's
// payload otherwise); the first profile that matches wins, else `defaultProfile`, else the caller is refused.
// Pure matching here; profiled.ts builds each profile's view of the engine.

import { UserError } from "../../catalog/errors.js";
import type { ClaimValue, Settings } from "../../catalog/settings.js";
import type { Caller } from "../types.js";

/** The profiles of a settings file, and the file, for messages. */
export type ProfileTable = Required<Pick<Settings, "profiles">> & Pick<Settings, "defaultProfile" | "file">;

/** A caller no profile matches, on a server without a default profile: every request it makes is refused. */
export class ProfileRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProfileRefused";
  }
}

/** The name of the profile `caller` gets (none: stdio, or HTTP without endpoint auth); throws ProfileRefused. */
export function profileOf({ table, caller }: { table: ProfileTable; caller: Caller | undefined }): string {
  if (caller) {
    for (const [name, profile] of Object.entries(table.profiles)) {
      if (profile.match && matches({ claims: caller.claims, match: profile.match })) return name;
    }
  }
  if (table.defaultProfile !== undefined) return table.defaultProfile;
  throw new ProfileRefused(
    caller
      ? `Forbidden: no profile of this server matches this caller (${readableCaller(caller)}), and it has no default profile. Ask the server's operator to give this caller a profile.`
      : "Forbidden: this server gives tools by profile to verified callers only, and has no default profile for a caller without endpoint auth.",
  );
}

/** Every entry of `match` holds: the claim equals one of the values given, or (a list claim) holds one of them. */
export function matches({
  claims,
  match,
}: {
  claims: Readonly<Record<string, unknown>>;
  match: Readonly<Record<string, ClaimValue | ClaimValue[]>>;
}): boolean {
  const entries = Object.entries(match);
  return (
    entries.length > 0 &&
    entries.every(([name, wanted]) => {
      const claim = claimAt(claims, name);
      const held = Array.isArray(claim) ? claim : [claim];
      const values = Array.isArray(wanted) ? wanted : [wanted];
      return values.some((value) => held.includes(value));
    })
  );
}

/** A claim by name, or by a dotted path into nested claims (Keycloak's `realm_access.roles`) when none has the name. */
function claimAt(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const part of name.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, part))
      return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Who a caller is, in words for messages and logs: never its token. */
export function readableCaller(caller: Caller): string {
  const { claims } = caller;
  if (typeof claims.token === "string") return `static token ${claims.token}`;
  const named = ["sub", "client_id", "azp"].flatMap((claim) =>
    typeof claims[claim] === "string" ? [`${claim} ${JSON.stringify(claims[claim])}`] : [],
  );
  return named.length > 0 ? named.join(", ") : caller.principal;
}

/** The profiles of `settings`, checked for what the schema cannot say; undefined when it has none. */
export function profileTable(settings: Settings | undefined): ProfileTable | undefined {
  const profiles = settings?.profiles;
  if (!settings || !profiles || Object.keys(profiles).length === 0) {
    if (settings?.defaultProfile !== undefined)
      throw new UserError({
        code: "E_SETTINGS",
        message: `${settings.file}#/defaultProfile: there are no profiles; define '${settings.defaultProfile}' under profiles`,
      });
    return undefined;
  }
  const { defaultProfile, file } = settings;
  if (defaultProfile !== undefined && !Object.hasOwn(profiles, defaultProfile))
    throw new UserError({
      code: "E_SETTINGS",
      message: `${file}#/defaultProfile: no profile '${defaultProfile}' (the profiles are: ${Object.keys(profiles).join(", ")})`,
    });
  return { profiles, file, ...(defaultProfile !== undefined ? { defaultProfile } : {}) };
}
