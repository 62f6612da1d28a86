// N replicas as docs/production.md runs them, for the replica tests and scenarios: a real
// redis-server (./redis.ts), N processes of the built `serve --transport http --state redis://…` on loopback ports,
// all with the same document, settings, environment and state secret (each its own state directory, as on machines
// of their own), the round-robin proxy (./round-robin-proxy.ts,
// sticky by Mcp-Session-Id, health-checking /healthz) in front, and a loopback upstream API that stamps when each
// request arrived (./recording-upstream.ts, in a thread of its own) and answers declared routes itself, passing
// others to `api` (./upstream.ts, scripted in code with `api.on`). A test kills and restarts a replica, or stops and
// restarts Redis. A scenario: `ReplicaSet.start({ document, routes })`, connect clients to `url`, read `arrivals()`.
// To cross replicas on purpose, a request names the one it must reach: `via(index)` is a fetch that does (a header
// the balancer honours and takes off); the balancer's origin (`publicUrl`) is known before the replicas start, for
// settings that name it (a sign-in's callback goes back through the balancer, as in production).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnCli, waitFor } from "./guard.js";
import { type Arrival, type DeclaredRoute, RecordingUpstream } from "./recording-upstream.js";
import { RedisServer } from "./redis.js";
import { type RoundRobinProxy, startRoundRobinProxy } from "./round-robin-proxy.js";
import { Upstream } from "./upstream.js";

export type { Arrival, DeclaredRoute };

export interface ReplicaSetOptions {
  /** The OpenAPI document, given the upstream's origin (for `servers`) and the balancer's. */
  document: (apiUrl: string, publicUrl: string) => object;
  /** Answered by the recording upstream itself; other requests go to `api`. */
  routes?: DeclaredRoute[];
  /** A settings file (`--config`), given the upstream's origin and the balancer's. */
  settings?: (apiUrl: string, publicUrl: string) => object;
  /** More `serve` arguments and environment variables, the same for every replica. */
  args?: string[];
  env?: Record<string, string>;
  count?: number;
}

const LISTENING = /serving \d+ tools at (http:\/\/\S+)\/mcp/;
const SECRET = "replica-set-state-secret-0123456789abcdef";
const PIN = "x-test-replica";

type Spawned = ReturnType<typeof spawnCli>;

export class ReplicaSet {
  private readonly processes: Spawned[] = [];
  private origins: string[] = [];
  private proxy!: RoundRobinProxy;

  private constructor(
    readonly redis: RedisServer,
    /** Where requests the declared routes do not answer go: script it with `api.on`. */
    readonly api: Upstream,
    private readonly recorder: RecordingUpstream,
    private readonly dir: string,
    private readonly argv: string[],
    private readonly env: Record<string, string>,
  ) {}

  static async start(options: ReplicaSetOptions): Promise<ReplicaSet> {
    const { document, routes = [], settings, args = [], env = {}, count = 3 } = options;
    const redis = await RedisServer.start();
    const api = await Upstream.start();
    const recorder = await RecordingUpstream.start({ routes, fallback: api.url });
    const dir = mkdtempSync(join(tmpdir(), "openapi-mcp-replicas-"));
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const spec = join(dir, "api.json");
    writeFileSync(spec, JSON.stringify(document(recorder.url, publicUrl)));
    const argv = ["serve", spec, "--transport", "http", "--state", redis.url, ...args];
    if (settings) {
      writeFileSync(join(dir, "settings.json"), JSON.stringify(settings(recorder.url, publicUrl)));
      argv.push("--config", join(dir, "settings.json"));
    }
    const set = new ReplicaSet(redis, api, recorder, dir, argv, { MCP_STATE_SECRET: SECRET, ...env });
    set.origins = await Promise.all(Array.from({ length: count }, (_, index) => set.spawn(index, 0)));
    set.proxy = await startRoundRobinProxy({
      upstreams: set.origins,
      sticky: true,
      healthCheck: { path: "/healthz", intervalMs: 100 },
      pinHeader: PIN,
      port,
    });
    return set;
  }

  /** The balancer's MCP endpoint. */
  get url(): string {
    return `${this.proxy.url}/mcp`;
  }

  /** A fetch whose every request the balancer sends to replica `index` (for a client's transport, or a browser). */
  via(index: number): typeof fetch {
    return (input, init) => {
      const headers = new Headers(input instanceof Request ? input.headers : undefined);
      for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
      headers.set(PIN, String(index));
      return fetch(input, { ...init, headers });
    };
  }

  /** Requests the balancer sent to each replica; replicas it holds for dead. */
  get balancer(): Pick<RoundRobinProxy, "counts" | "down"> {
    return this.proxy;
  }

  /** Every request the upstream received until now, in order of arrival (optionally to one path). */
  async arrivals(path?: string): Promise<Arrival[]> {
    await this.recorder.settled();
    return path === undefined ? [...this.recorder.arrivals] : this.recorder.arrivals.filter((a) => a.path === path);
  }

  /** The replica's log so far (stderr). */
  log(index: number): string {
    return this.processes[index]?.stderr() ?? "";
  }

  /** SIGKILL: the process dies at once, its calls in flight with it. */
  async kill(index: number): Promise<void> {
    const spawned = this.processes[index];
    spawned?.child.kill("SIGKILL");
    await spawned?.exited;
  }

  /** Starts a replica again on its port; the balancer's health check brings it back. */
  async restart(index: number): Promise<void> {
    await this.spawn(index, Number(new URL(this.origins[index]!).port));
  }

  async close(): Promise<void> {
    await this.proxy?.close();
    await Promise.all(this.processes.map((_, index) => this.kill(index)));
    await this.recorder.close();
    await this.api.close();
    await this.redis.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** One `serve` process; its origin, from the line it prints when listening. */
  private async spawn(index: number, port: number): Promise<string> {
    // Each its own state directory, as on machines of their own: what they share goes through Redis.
    const env = { XDG_STATE_HOME: join(this.dir, `state-${index}`), ...this.env };
    const spawned = spawnCli([...this.argv, "--port", String(port)], env);
    this.processes[index] = spawned;
    await waitFor(() => LISTENING.test(spawned.stderr()) || spawned.child.exitCode !== null, 20_000);
    const origin = LISTENING.exec(spawned.stderr())?.[1];
    if (!origin) throw new Error(`replica ${index} did not start:\n${spawned.stderr()}`);
    return origin;
  }
}

/** A port free now on 127.0.0.1, for a server a document must name before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
