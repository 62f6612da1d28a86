// Where the HTTP server listens, and what may go wrong there, as the user's to fix: a taken port, an address this
// machine does not have, and an endpoint offered beyond this machine with nobody checking who calls it (its tools
// call the API with this server's credentials).

import type { Server } from "node:http";
import { UserError } from "../catalog/errors.js";
import { bracketed } from "./guard.js";
import { isLoopbackHost } from "../catalog/url.js";

/**
 * Refuses a non-loopback address without endpoint auth unless the operator said otherwise; then warns, on every
 * start, so the choice stays visible.
 */
export function checkExposure({
  host,
  authenticated,
  allowUnauthenticated,
  log,
}: {
  host: string;
  authenticated: boolean;
  allowUnauthenticated: boolean;
  log: (line: string) => void;
}): void {
  if (authenticated || isLoopbackHost(host)) return;
  const wildcard = /^(0\.0\.0\.0|::|\[::\]|)$/.test(host);
  const risk = `anyone who can reach ${wildcard ? "this machine" : host} can call the API with this server's credentials`;
  if (allowUnauthenticated) {
    log(`WARNING --allow-unauthenticated: serving on ${host} without endpoint auth: ${risk}`);
    return;
  }
  throw new UserError({
    code: "E_UNAUTHENTICATED",
    message:
      `not serving on ${host} without endpoint auth: ${risk}. Require a bearer token (--auth-token-env VAR, where ` +
      "$VAR lists the accepted tokens) or OAuth access tokens (--auth-resource and --auth-issuer); or, when " +
      "something in front already checks callers, pass --allow-unauthenticated (use --host 127.0.0.1 for this machine only)",
  });
}

/** How a user sets the address, for messages: `PORT or --port`, say. */
export interface AddressOptionNames {
  port: string;
  host: string;
}

/** Listens, or fails with a UserError saying what to change. */
export function listen({
  server,
  host,
  port,
  names,
}: {
  server: Server;
  host: string;
  port: number;
  names: AddressOptionNames;
}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => reject(listenError({ error, host, port, names }));
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

function listenError({
  error,
  host,
  port,
  names,
}: {
  error: NodeJS.ErrnoException;
  host: string;
  port: number;
  names: AddressOptionNames;
}): Error {
  const where = `${bracketed(host)}:${port}`;
  const fail = (message: string): UserError => new UserError({ code: "E_LISTEN", message, cause: error });
  switch (error.code) {
    case "EADDRINUSE":
      return fail(`port ${port} is in use${isLoopbackHost(host) ? "" : ` on ${host}`}; set ${names.port}`);
    case "EACCES":
    case "EPERM":
      return fail(
        `not allowed to listen on ${where}${port < 1024 ? " (ports below 1024 need privileges)" : ""}; set ${names.port}`,
      );
    case "EADDRNOTAVAIL":
      return fail(
        `cannot listen on ${host}: this machine has no such address; set ${names.host} to one of its addresses (127.0.0.1 for this machine only, 0.0.0.0 for all)`,
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return fail(`cannot listen on ${host}: the name does not resolve; set ${names.host} to an address`);
    default:
      return error.code ? fail(`cannot listen on ${where}: ${error.code} ${error.message}`) : error;
  }
}
