// The Try it page's API: a dry run shows the exact request the call would send, secrets masked, as `call --dry-run`
// shows it (the same describeRequest); a real call goes through Engine.callTool as an agent's does (validation,
// credentials, policy, rate limits, masking, audit), as the admin who clicked, and answers the result unchanged.
// A call whose policy is `approve` waits in the console's own approvals queue (whatever `approvals` routes agents'
// calls to): it is sent once an admin approves it on the Approvals page, and the answer comes back here then.

import { describeRequest, secretsOf } from "../runtime/secrets/masked-request.js";
import type { Environment } from "../runtime/credentials/credentials.js";
import type { Caller } from "../runtime/types.js";
import type { Admin } from "./admins.js";
import { consoleName } from "./approvals-page.js";
import type { ConsolePage, PageAnswer, PageRequest } from "./page.js";

export class TryPage implements ConsolePage {
  readonly name = "try";

  constructor(private readonly options: { env: Environment }) {}

  async post({ body, admin, view, signal }: PageRequest): Promise<PageAnswer> {
    const given = (body ?? {}) as { tool?: unknown; arguments?: unknown; dryRun?: unknown };
    if (typeof given.tool !== "string") return { status: 400, json: { error: "Say which tool to call." } };
    const { engine, catalog } = view;
    const tool = given.tool;
    const args = given.arguments ?? {};
    const caller = consoleCaller(admin);
    if (given.dryRun === true) {
      // No credential is needed to see the request: an unset one shows what to set instead.
      const prepared = await engine.prepare(tool, args, { dryRun: true, caller, signal });
      if ("error" in prepared) return { json: { result: prepared.error } };
      const secrets = [...prepared.secrets, ...secretsOf(catalog, this.options.env)];
      return { json: { request: describeRequest(prepared.request, secrets, prepared.placeholders) } };
    }
    const result = await engine.callTool(tool, args, { caller, signal, approvalRoute: "console" });
    return { json: { result } };
  }
}

/** The admin as the engine's caller: the audit line names them (`console:admin`, `console:<OAuth principal>`). */
export function consoleCaller(admin: Admin): Caller {
  return { principal: consoleName(admin), claims: { console: admin.how }, headers: {} };
}
