// The credentials stage: the request built exactly as the operation says, its source's static headers expanded,
// its credentials added (a per-user scheme may ask the person to sign in first), the client's trace context carried
// on. Also what a dry run (`call --dry-run`) and the 401 retry (send.ts) build again: only this, not the checks.

import { OpenApiMcpError } from "../../catalog/errors.js";
import { applyCredentials, sharedSecretSources } from "../credentials/credentials.js";
import { buildRequest } from "../http/request.js";
import { errorResult } from "../http/response.js";
import { SecretUnavailable } from "../secrets/secret-references.js";
import { ArgumentError, type CallContext } from "../types.js";
import { UserCredentialsMissing } from "../credentials/user-credentials.js";
import { placeOf } from "../checks/validate.js";
import { answered, type Built, type Checked, type Prepared, type Ran, type Stopped } from "./call.js";
import { environmentOf, offOrigin, userSchemes } from "./environment.js";
import type { EngineParts } from "./parts.js";
import type { Stage } from "./pipeline.js";
import { expandStaticHeaders } from "./static-headers.js";
import { withTrace } from "./trace.js";

/** A dry run (`call --dry-run`) shows a placeholder where an unset credential would go instead of stopping. */
export type PrepareContext = CallContext & { dryRun?: boolean };

export function credentialsStage(parts: EngineParts): Stage<Checked, Built, Ran> {
  return async (call, next) => {
    const prepared = await prepareRequest({ parts, call, context: call.context });
    if ("error" in prepared) {
      call.record(prepared.outcome);
      return answered(prepared.error);
    }
    return next(Object.assign(call, { prepared }));
  };
}

/** The request for checked arguments, credentials added; or the error result that stops the call. */
export async function prepareRequest({
  parts,
  call,
  context,
}: {
  parts: EngineParts;
  call: Pick<Checked, "tool" | "given">;
  context: PrepareContext;
}): Promise<Prepared | Stopped> {
  const { tool, given } = call;
  const { name } = tool;
  const { options } = parts;
  const env = environmentOf({ options, tool });
  const secretSources = options.secretSources ?? sharedSecretSources();
  const dryRun = context.dryRun === true;
  try {
    // Only the source's own static headers may name variables: a `${VAR}` in an argument stays literal text.
    const expanded = tool.operation.headers
      ? await expandStaticHeaders({ headers: tool.operation.headers, env, secretSources, dryRun })
      : undefined;
    const operation = expanded ? { ...tool.operation, headers: expanded.headers } : tool.operation;
    const built = buildRequest({ operation, args: given as Record<string, unknown> });
    const refused = offOrigin({ options, tool, url: built.origin });
    if (refused)
      return {
        error: errorResult(`${name} cannot be called: ${refused}. Nothing was sent.`),
        outcome: "secret_unavailable",
      };
    const applied = await applyCredentials({
      request: built,
      security: tool.operation.security,
      credentials: options.catalog.credentials,
      env,
      tokens: parts.tokens,
      secretSources,
      ...userSchemes(options),
      ...(context.caller ? { caller: context.caller } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
      ...(dryRun ? { placeholders: true, dryRun } : {}),
    });
    const traced = withTrace(applied.request, context.trace);
    const references = [...new Set([...(applied.references ?? []), ...(expanded?.references ?? [])])];
    // A call's mask list is what this call could carry: its scheme's values in every form, their token-request
    // secrets, the static-header values it expands, and the values its own `${file:}`/`${cmd:}` references gave
    // lately (one rotated away may still be in flight). Not what other tools use: an API can only echo what it
    // was sent, and masking another tool's key here would let this caller test guesses at that key.
    const secrets = [...applied.secrets, ...(expanded?.values ?? []), ...secretSources.recentValues(references)];
    context.carried?.(secrets);
    return { tool, ...applied, ...traced, secrets, ...(references.length > 0 ? { references } : {}) };
  } catch (error) {
    if (error instanceof SecretUnavailable) {
      return {
        error: errorResult(`${name} cannot be called: ${error.message}. Nothing was sent.`),
        outcome: "secret_unavailable",
      };
    }
    if (error instanceof ArgumentError) {
      return {
        error: errorResult(
          `Invalid arguments for ${name}: ${placeOf(error.pointer)}: ${error.message}. Nothing was sent.`,
        ),
        outcome: "invalid_arguments",
      };
    }
    if (error instanceof UserCredentialsMissing) {
      // Asked once: after the person signed in, the credentials are looked up again, without asking a second time.
      if (error.signIn && context.signIn) {
        const { signIn: _asked, ...rest } = context;
        if ((await context.signIn(error.signIn)) === "signedIn") return prepareRequest({ parts, call, context: rest });
      }
      return {
        error: errorResult(`${name} cannot be called: ${error.message} Nothing was sent.`),
        outcome: "missing_credentials",
      };
    }
    if (error instanceof OpenApiMcpError)
      return { error: errorResult(`${name} cannot be called: ${error.message}`), outcome: "network_error" };
    throw error;
  }
}
