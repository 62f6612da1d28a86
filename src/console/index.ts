// `serve --transport http --console`: the console's mount for the HTTP server, with its admin authentication
// checked at start (a missing or short admin token stops the start, as a missing endpoint token does). The console
// is serve-only: it is not copied into generated projects (its Author and registry pages manage what `serve` loads,
// and a generated project's tools are fixed at generation).

import { UserError } from "../catalog/errors.js";
import { isLoopbackHost } from "../catalog/url.js";
import { secretsOf } from "../runtime/secrets/masked-request.js";
import type { Environment } from "../runtime/credentials/credentials.js";
import type { HttpMount } from "../runtime/http-route.js";
import type { ApprovalQueue } from "../runtime/approvals/approval-queue.js";
import type { ActivityLog } from "./activity-log.js";
import { ActivityPage } from "./activity-page.js";
import { ApprovalsPage } from "./approvals-page.js";
import { type Authoring, AuthorPage } from "./author-page.js";
import { ADMIN_SCOPE, MIN_ADMIN_TOKEN_CHARS } from "./admins.js";
import { Console } from "./console.js";
import type { ConsoleView } from "./page.js";
import { ToolsPage } from "./tools-page.js";
import { TryPage } from "./try-page.js";

export interface ConsoleSetup {
  view: () => ConsoleView;
  env: Environment;
  /** Calls waiting for a person: the Approvals page lists and decides them, Try it queues there. */
  approvals: ApprovalQueue;
  /** `--console-token-env`: the variable holding the admin token. */
  tokenEnv?: string;
  /** The endpoint checks OAuth access tokens (then admins may log in with one carrying the admin scope or role). */
  oauth: boolean;
  /** The address served: cookies are Secure unless it is loopback. */
  host: string;
  /** The engine's audit lines, kept for the Activity page (the engine writes them there as to --audit-log). */
  activity: ActivityLog;
  /** The Author page's validator, draft engine and registry (publishing needs `--registry`). */
  authoring: Authoring;
}

export function consoleMount({
  view,
  env,
  approvals,
  tokenEnv,
  oauth,
  host,
  activity,
  authoring,
}: ConsoleSetup): HttpMount {
  const adminToken = tokenEnv === undefined ? undefined : env[tokenEnv];
  if (tokenEnv !== undefined && (adminToken === undefined || adminToken.length < MIN_ADMIN_TOKEN_CHARS))
    throw new UserError({
      code: "E_OPTION",
      message: `--console-token-env: ${adminToken === undefined ? `${tokenEnv} is not set` : `${tokenEnv} holds fewer than ${MIN_ADMIN_TOKEN_CHARS} characters`}; set it to the console's admin token (e.g. \`openssl rand -hex 24\`)`,
    });
  if (adminToken === undefined && !oauth)
    throw new UserError({
      code: "E_OPTION",
      message: `--console needs an admin login: --console-token-env VAR (a variable holding the admin token), or OAuth endpoint auth (--auth-resource, --auth-issuer), whose tokens with the ${ADMIN_SCOPE} scope or role may log in`,
    });
  const tools = new ToolsPage();
  // The Tools page's rows are built while the server starts up, not on the admin's first visit.
  setImmediate(() => tools.warm(view()));
  return new Console({
    view,
    pages: [
      tools,
      new TryPage({ env }),
      new ApprovalsPage(approvals),
      new ActivityPage(activity),
      new AuthorPage({ authoring, env }),
    ],
    ...(adminToken !== undefined ? { adminToken } : {}),
    oauth,
    secure: !isLoopbackHost(host),
    // The admin token too: it is a secret like any credential.
    secrets: () => [...secretsOf(view().catalog, env), ...(adminToken !== undefined ? [adminToken] : [])],
  });
}
