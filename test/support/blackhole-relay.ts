// A TCP relay on 127.0.0.1 in front of another port (a redis-server), which can make the connections it carries go
// silent, as a dead network does: bytes are still accepted (TCP acknowledges them, so the kernel never gives up),
// nothing is forwarded either way, and no RST or FIN is sent. Connections made after that pass again, as through a
// network that has healed for new connections while the old ones are stuck.

import { createServer, type Server, Socket } from "node:net";

interface Pair {
  client: Socket;
  target: Socket;
  silent: boolean;
}

export class BlackholeRelay {
  private readonly pairs = new Set<Pair>();
  private server: Server | undefined;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start({ targetPort }: { targetPort: number }): Promise<BlackholeRelay> {
    const relay = new BlackholeRelay();
    const server = createServer((client) => {
      const target = new Socket();
      const pair: Pair = { client, target, silent: false };
      relay.pairs.add(pair);
      const end = (): void => {
        relay.pairs.delete(pair);
        client.destroy();
        target.destroy();
      };
      client.on("error", end).on("close", end);
      target.on("error", end).on("close", end);
      target.connect(targetPort, "127.0.0.1", () => {
        if (pair.silent) return;
        client.pipe(target);
        target.pipe(client);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    relay.server = server;
    relay.port = typeof address === "object" && address ? address.port : 0;
    return relay;
  }

  /** The connections open now stop delivering anything, both ways, and stay open; new ones pass. */
  silenceOpenConnections(): void {
    for (const pair of this.pairs) {
      if (pair.silent) continue;
      pair.silent = true;
      pair.client.unpipe(pair.target);
      pair.target.unpipe(pair.client);
      // Read and drop, so both sides' writes are acknowledged and nothing ever arrives.
      pair.client.on("data", () => {});
      pair.target.on("data", () => {});
    }
  }

  /** Connections through the relay now, silent ones included. */
  get open(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    for (const { client, target } of this.pairs) {
      client.destroy();
      target.destroy();
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
