// Raw clients for slow-request tests: a socket that writes what it is told (headers, part of a body, a trickle) and
// keeps what the server answers.

import { connect, type Socket } from "node:net";
import { INITIALIZE, mcpHeaders } from "./http-support.js";

/** A raw connection: writes what it is given, keeps what comes back, knows when the server closed it. */
export interface Peer {
  socket: Socket;
  received: () => string;
  /** Settles when the server closes the connection; rejects after `ms` if it does not. */
  closed: (ms?: number) => Promise<void>;
  /** Settles with the status line once a response starts; rejects after `ms` if none does. */
  answered: (ms?: number) => Promise<string>;
}

export function peer(port: number): Promise<Peer> {
  return peerFrom({ port });
}

/** A raw connection from `localAddress` (another loopback address, 127.0.0.2 say: another client to the server). */
export async function peerFrom({ port, localAddress }: { port: number; localAddress?: string }): Promise<Peer> {
  const socket = connect({ port, host: "127.0.0.1", ...(localAddress ? { localAddress } : {}) });
  await new Promise((resolve) => socket.once("connect", resolve));
  let text = "";
  let ended = false;
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  // The server may reset a connection it refused while we still write: what it answered is what counts.
  socket.on("error", () => {});
  socket.on("close", () => (ended = true));
  const within = (what: string, ms: number, done: () => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const deadline = Date.now() + ms;
      const poll = (): void => {
        if (done()) resolve();
        else if (Date.now() > deadline)
          reject(new Error(`${what} within ${ms} ms; received: ${JSON.stringify(text.slice(0, 200))}`));
        else setTimeout(poll, 10);
      };
      poll();
    });
  return {
    socket,
    received: () => text,
    closed: (ms = 3_000) => within("the server did not close the connection", ms, () => ended),
    answered: async (ms = 3_000) => {
      await within("no response", ms, () => text.includes("\r\n"));
      return text.slice(0, text.indexOf("\r\n"));
    },
  };
}

/** The head of an initialize POST whose body (INITIALIZE padded with spaces) is `size` bytes. */
export function postHead({ port, size, token }: { port: number; size: number; token?: string }): string {
  const headers = {
    ...mcpHeaders(port, token === undefined ? {} : { authorization: `Bearer ${token}` }),
    "content-length": String(size),
  };
  return `POST /mcp HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\r\n")}\r\n\r\n`;
}

export const paddedInitialize = (size: number): Buffer => Buffer.from(INITIALIZE.padEnd(size, " "));

/** Writes `data` 10 bytes every `every` ms, until all is written or the socket is closed. */
export function trickle({ socket, data, every = 50 }: { socket: Socket; data: string | Buffer; every?: number }): void {
  let at = 0;
  const bytes = Buffer.from(data);
  const timer = setInterval(() => {
    if (at >= bytes.length || socket.destroyed) return clearInterval(timer);
    socket.write(bytes.subarray(at, at + 10));
    at += 10;
  }, every);
}
