// The console's login form's request: anyone who reaches the server can send one, so it costs little. Its body is a
// token and nothing else (16 KiB, where it once read 1 MiB: 1,000 stalled logins took 1 GB), read by the server
// within its budget of bodies arriving, as the share of the sender's address, and under its request timeout. A
// refusal is logged as one (`refused: 401 …`), so past the first few a minute it is only counted.

import type { MountRequest } from "../runtime/http-route.js";
import type { Admin, ConsoleAdmins } from "./admins.js";
import { readJson } from "./replies.js";
import type { ConsoleSession, ConsoleSessions } from "./sessions.js";

/**
 * A login body's bound: `{"token": …}` with an access token, whose JWTs run to a few KiB with many roles (no token
 * longer than Node's 16 KiB of headers could be sent to `/mcp` as a bearer anyway).
 */
export const MAX_LOGIN_BODY_BYTES = 16 * 1024;

export async function logIn({
  request: { req, verifyBearer, readBody, log },
  admins,
  sessions,
  answer,
}: {
  request: MountRequest;
  admins: ConsoleAdmins;
  sessions: ConsoleSessions;
  answer: (answer: { status: number; json: unknown; headers?: Record<string, string> }) => void;
}): Promise<void> {
  // Not logged in yet, the sender has no name: its address holds the share (behind a proxy, the proxy's).
  const owner = `address:${req.socket.remoteAddress ?? "unknown"}`;
  const body = await readJson({ req, readBody, limit: MAX_LOGIN_BODY_BYTES, owner });
  if (body.outcome === "aborted") return;
  if (body.outcome === "refused") {
    const { status, error, headers } = body.refused;
    return answer({ status, json: { error }, headers });
  }
  const token = (body.json as { token?: unknown } | null)?.token;
  const admin: Admin | undefined =
    typeof token === "string"
      ? await admins.admit({
          token,
          // The endpoint's verifier reads the Authorization header: the token given is checked as if sent there.
          verifyBearer: (given) => {
            req.headers.authorization = `Bearer ${given}`;
            return verifyBearer();
          },
        })
      : undefined;
  if (!admin) {
    log("refused: 401 a console login: not the admin token, nor an admin's access token");
    return answer({ status: 401, json: { error: "That is not the console's admin token." } });
  }
  const { session, cookie } = sessions.start(admin);
  log(`console: ${admin.who} logged in${admin.until === undefined ? "" : `, until ${isoTime(admin.until)}`}`);
  answer({ status: 200, json: sessionJson(session), headers: { "set-cookie": cookie } });
}

export function sessionJson(session: ConsoleSession): { who: string; csrf: string } {
  return { who: session.admin.who, csrf: session.csrf };
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
