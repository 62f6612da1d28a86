// The Author page's API: a definition as the admin writes it, checked by the validator `validate` and the registry
// use (errors at line and column), its actions listed; one action tried against the API before anything is
// published (a dry run showing the exact request, secrets masked, or a real call through the engine's guard rails,
// audited as the admin); then published into the registry (`serve --registry`), whose status the page shows too.

import { describeRequest, secretsOf } from "../runtime/secrets/masked-request.js";
import { messageOf, UserError } from "../catalog/errors.js";
import type { Catalog } from "../catalog/types.js";
import type { Environment } from "../runtime/credentials/credentials.js";
import type { Engine } from "../runtime/engine.js";
import type { Draft } from "../registry/drafts.js";
import { sourceNameProblem } from "../registry/source-name.js";
import type { PublishOutcome, RegistryStatus, SourceError } from "../registry/status.js";
import { consoleCaller } from "./try-page.js";
import type { ConsolePage, PageAnswer, PageRequest } from "./page.js";

/** What serve gives the Author page: the validator, the draft's own engine, and the registry when there is one. */
export interface Authoring {
  check(draft: Draft): Promise<SourceError[]>;
  /** The draft's catalog alone; a UserError when it has errors. */
  catalog(draft: Draft): Promise<Catalog>;
  /** An engine for that catalog with the serving engine's guard rails (credentials, policies, limits, audit). */
  engineFor(catalog: Catalog): Engine;
  registry?: { status(): RegistryStatus; publish(draft: Draft): Promise<PublishOutcome> };
}

export const NO_REGISTRY =
  "Publishing needs a registry: serve with --registry <dir> (a directory of sources, watched and published without a restart).";

export class AuthorPage implements ConsolePage {
  readonly name = "author";

  constructor(private readonly options: { authoring: Authoring; env: Environment }) {}

  async get(): Promise<PageAnswer> {
    const { registry } = this.options.authoring;
    return { json: registry ? { registry: registry.status() } : { registry: null, enable: NO_REGISTRY } };
  }

  async post(request: PageRequest): Promise<PageAnswer> {
    const draft = draftOf(request.body);
    if ("error" in draft) return { status: 400, json: draft };
    const what = request.path[0];
    if (what === "check") return this.check(draft);
    if (what === "try") return this.try({ draft, request });
    if (what === "publish") {
      const { registry } = this.options.authoring;
      if (!registry) return { status: 409, json: { error: NO_REGISTRY } };
      return { json: await refusal(() => registry.publish(draft)) };
    }
    return { status: 404, json: { error: "Not found" } };
  }

  private async check(draft: Draft): Promise<PageAnswer> {
    const { authoring } = this.options;
    const errors = await authoring.check(draft);
    if (errors.length > 0) return { json: { errors, actions: [] } };
    const catalog = await refusal(() => authoring.catalog(draft));
    if ("errors" in catalog) return { json: { errors: catalog.errors, actions: [] } };
    const actions = catalog.tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      method: tool.operation.method.toUpperCase(),
      server: tool.operation.serverUrl,
      path: tool.operation.path,
      effect: tool.effect,
      inputSchema: tool.inputSchema,
    }));
    return { json: { errors: [], actions } };
  }

  /** One action of the draft, as Try it calls a served tool: dry run or a real call, as the admin. */
  private async try({ draft, request }: { draft: Draft; request: PageRequest }): Promise<PageAnswer> {
    const { action, arguments: args = {}, dryRun } = (request.body ?? {}) as Record<string, unknown>;
    if (typeof action !== "string") return { status: 400, json: { error: "Say which action to try." } };
    const { authoring, env } = this.options;
    const made = await refusal(async () => {
      const catalog = await authoring.catalog(draft);
      return { catalog, engine: authoring.engineFor(catalog) };
    });
    if ("errors" in made) return { status: 422, json: { error: made.errors.map((e) => e.message).join("\n") } };
    const { catalog, engine } = made;
    const caller = consoleCaller(request.admin);
    const { signal } = request;
    if (dryRun === true) {
      const prepared = await engine.prepare(action, args, { dryRun: true, caller, signal });
      if ("error" in prepared) return { json: { result: prepared.error } };
      const secrets = [...prepared.secrets, ...secretsOf(catalog, env)];
      return { json: { request: describeRequest(prepared.request, secrets, prepared.placeholders) } };
    }
    return { json: { result: await engine.callTool(action, args, { caller, signal, approvalRoute: "console" }) } };
  }
}

function draftOf(body: unknown): Draft | { error: string } {
  const { name, text } = (body ?? {}) as Record<string, unknown>;
  if (typeof name !== "string" || typeof text !== "string")
    return { error: "Send the definition's file name (name) and its text (text)." };
  // Checked here for every endpoint alike (check, try, publish): a name becomes a path in the registry directory.
  const problem = sourceNameProblem(name);
  if (problem) return { error: `The file name ${problem}.` };
  return { name, text };
}

/** What a UserError says, as errors the page shows; a bug is rethrown (and answered 500). */
async function refusal<T>(run: () => Promise<T>): Promise<T | { published: false; errors: SourceError[] }> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    return { published: false, errors: [{ message: messageOf(error) }] };
  }
}
