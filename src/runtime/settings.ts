// A settings file applied to the engine: its options under those given on the command line (which win), its
// policies before theirs (later entries win), and its credential values placed under the variable names the
// catalog's schemes read, so the engine finds them as it finds exported variables. Pure: `serve` and generated
// servers read the file themselves, with the same reader, and apply it here.

import { UserError } from "../catalog/errors.js";
import type { Settings } from "../catalog/settings.js";
import type { Catalog, ValueSource } from "../catalog/types.js";
import { type Environment, expandVariables } from "../catalog/variables.js";
import { RUNTIME_OPTIONS, type RuntimeSettings } from "./options.js";

/** The engine settings named as their settings keys (timeoutMs, …); the rest are merged one by one below. */
const SAME_NAME = RUNTIME_OPTIONS.flatMap((option) =>
  option.engine && option.setting === option.key ? [option.setting as keyof Settings & keyof RuntimeSettings] : [],
);

/** `given` with what the settings file sets where `given` leaves it out; without a file, `given` alone. */
export function withSettings({
  settings,
  given,
}: {
  settings: Settings | undefined;
  given: RuntimeSettings;
}): RuntimeSettings {
  const approval = settings?.approvalTimeoutSeconds;
  const merged: Record<string, unknown> = {
    ...Object.fromEntries(SAME_NAME.map((key) => [key, given[key] ?? settings?.[key]])),
    policies: [
      ...Object.entries(settings?.policy ?? {}).map(([target, decision]) => `${target}=${decision}`),
      ...(given.policies ?? []),
    ],
    deniedTools: given.deniedTools ?? settings?.deniedTools,
    approvalTimeoutMs: given.approvalTimeoutMs ?? (approval !== undefined ? approval * 1000 : undefined),
    rateLimits: given.rateLimits ?? settings?.rateLimits,
    inFlight: given.inFlight ?? settings?.inFlight,
    responseTextSources: given.responseTextSources ?? settings?.responseTextSources,
    stateSecrets: given.stateSecrets,
    secrets: settings?.secrets,
  };
  // Optional options stay absent rather than `undefined` (exactOptionalPropertyTypes).
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)) as RuntimeSettings;
}

/** What each kind of scheme takes from settings. */
const FIELDS: Record<string, string[]> = {
  apiKey: ["value"],
  bearer: ["value"],
  basic: ["username", "password"],
  oauth2: ["clientId", "clientSecret"],
};

/**
 * The environment the engine reads credentials from: `env`, plus the settings file's values under each scheme's
 * variable names. `${VAR}` in a value is read from `env`.
 */
export function credentialEnvironment({
  settings,
  catalog,
  env,
}: {
  settings: Settings;
  catalog: Pick<Catalog, "credentials">;
  env: Environment;
}): Environment {
  const entries = Object.entries(settings.credentials ?? {});
  if (entries.length === 0) return env;
  const result: Environment = { ...env };
  for (const [id, given] of entries) {
    const credential = Object.hasOwn(catalog.credentials, id) ? catalog.credentials[id] : undefined;
    const place = `${settings.file}#/credentials/${id}`;
    if (!credential) {
      const known = Object.keys(catalog.credentials);
      throw new UserError({
        code: "E_SETTINGS",
        message: `${place}: no security scheme '${id}' (the source has: ${known.join(", ") || "none"})`,
      });
    }
    // A per-user scheme's value comes from each caller (user-credential-modes.ts), which checks its settings.
    const { perUser, ...values } = typeof given === "string" ? { value: given } : given;
    if (perUser !== undefined && Object.keys(values).length === 0) continue;
    const fields = FIELDS[credential.type] ?? [];
    const stray = Object.keys(values).filter((field) => !fields.includes(field));
    if (stray.length > 0) {
      throw new UserError({
        code: "E_SETTINGS",
        message: `${place}: ${/^[aeiou]/i.test(credential.type) ? "an" : "a"} ${credential.type} scheme takes ${fields.join(" and ") || "no values"}, not ${stray.join(", ")}`,
      });
    }
    const set = (source: ValueSource | undefined, value: string | undefined, field: string): void => {
      if (value === undefined) return;
      if (source === undefined || !("env" in source)) {
        throw new UserError({
          code: "E_SETTINGS",
          message: `${place}/${field}: scheme '${id}' (${credential.type}) takes no ${field} from settings`,
        });
      }
      // `${file:…}` and `${cmd:…}` stay: the engine reads them at each call (secret-sources.ts).
      result[source.env] = expandVariables({
        text: value,
        env,
        place: `${place}/${field}`,
        keepSecretReferences: true,
      });
    };
    switch (credential.type) {
      case "apiKey":
        set(credential.value, values.value, "value");
        break;
      case "bearer":
        set(credential.token, values.value, "value");
        break;
      case "basic":
        set(credential.username, values.username, "username");
        set(credential.password, values.password, "password");
        break;
      case "oauth2":
        set(credential.clientId, values.clientId, "clientId");
        set(credential.clientSecret, values.clientSecret, "clientSecret");
        break;
      default:
        throw new UserError({
          code: "E_SETTINGS",
          message: `${place}: scheme '${id}' is not supported (${credential.reason}); it takes no values`,
        });
    }
  }
  return result;
}
