// The deployment files of deploy/ (compose.yaml, kubernetes.yaml) against openapi-mcp's own options: docker and
// kubectl cannot run here, so each file is parsed and what it asks of `serve` is read by `serve`'s own option
// reader. Every flag is one `serve` declares; every variable is one `serve` reads (the table's `cliEnv`), the one
// named by --auth-token-env, or a credential of the mounted document; replicas ≥ 2; probes on /healthz at the
// port served; the shared state at the Redis service of the same file; MCP_STATE_SECRET from a secret, one for all.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { readServeOptions } from "../../src/cli/serve.js";
import { credentialVariables } from "../../src/catalog/security.js";
import { loadCatalog } from "../../src/load/index.js";
import { RUNTIME_OPTIONS } from "../../src/runtime/options.js";
import { example, ROOT } from "../support/fixtures.js";

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML, read by the paths the file formats define
type Doc = Record<string, any>;

const read = (name: string): string => readFileSync(`${ROOT}deploy/${name}`, "utf8");
const SERVE_READS = new Set(RUNTIME_OPTIONS.flatMap((option) => (option.cliEnv ? [option.cliEnv] : [])));

/** One kind of replica as a deployment file runs it: its command line, its variables, how many run. */
interface Replicas {
  args: string[];
  env: string[];
  replicas: number;
}

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at < 0 ? undefined : args[at + 1];
}

/** What is wrong with these replicas for `serve`, in words; empty when nothing. */
async function problems({ args, env, replicas }: Replicas): Promise<string[]> {
  const found: string[] = [];
  if (args[0] !== "serve") found.push(`the command is not serve: ${args[0]}`);
  try {
    const values = readServeOptions(args.slice(1));
    if (values.transport !== "http") found.push("not --transport http");
    if (values.host !== "0.0.0.0") found.push("not listening on every address (--host 0.0.0.0)");
  } catch (error) {
    found.push(`serve refuses its options: ${(error as Error).message}`);
  }
  const credentials = (await loadCatalog(example("petstore.openapi.yaml"))).credentials;
  const readable = new Set([
    ...SERVE_READS,
    ...(flag(args, "auth-token-env") ? [flag(args, "auth-token-env")!] : []),
    ...Object.values(credentials).flatMap((credential) => credentialVariables(credential)),
  ]);
  for (const name of env) if (!readable.has(name)) found.push(`serve does not read ${name}`);
  if (replicas < 2) found.push(`${replicas} replica(s)`);
  if (!env.includes("MCP_STATE_SECRET")) found.push("no MCP_STATE_SECRET: approvals resume only where asked");
  return found;
}

function compose(): { file: Doc; mcp: Doc; replicas: Replicas } {
  const file = parse(read("compose.yaml")) as Doc;
  const mcp = file.services.mcp as Doc;
  const replicas = { args: mcp.command, env: Object.keys(mcp.environment), replicas: mcp.deploy.replicas };
  return { file, mcp, replicas };
}

function kubernetes(): { docs: Doc[]; container: Doc; deployment: Doc; replicas: Replicas } {
  const docs = parseAllDocuments(read("kubernetes.yaml")).map((doc) => doc.toJS() as Doc);
  const deployment = docs.find((doc) => doc.kind === "Deployment")!;
  const container = deployment.spec.template.spec.containers[0] as Doc;
  const env = (container.env as Doc[]).map((variable) => variable.name as string);
  return { docs, container, deployment, replicas: { args: container.args, env, replicas: deployment.spec.replicas } };
}

describe("deploy/compose.yaml", () => {
  it("runs serve as serve reads it: known flags and variables, 3 replicas, MCP_STATE_SECRET", async () => {
    expect(await problems(compose().replicas)).toEqual([]);
  });

  it("probes /healthz on the port served, shares state through its redis service, the secret from outside", () => {
    const { file, mcp, replicas } = compose();
    expect(mcp.healthcheck.test.join(" ")).toContain(`:${flag(replicas.args, "port")}/healthz`);
    const state = new URL(flag(replicas.args, "state") ?? "");
    expect(state.protocol).toBe("redis:");
    expect(file.services[state.hostname]?.image).toMatch(/^(redis|valkey)/);
    expect(mcp.depends_on[state.hostname]).toBeDefined();
    // One value for the service, so for all its replicas, from the operator's environment, never written here.
    expect(mcp.environment.MCP_STATE_SECRET).toMatch(/^\$\{MCP_STATE_SECRET:\?/);
    expect(read("haproxy.cfg")).toMatch(/option httpchk GET \/healthz/);
  });

  it("sends calls for a dead replica elsewhere: redispatch on retry, a health check more often than HAProxy's 2 s", () => {
    const backend = read("haproxy.cfg")
      .split("\n")
      .filter((line) => !line.trim().startsWith("#"))
      .join("\n");
    expect(backend).toMatch(/^\s*option redispatch\b/m);
    expect(Number(/^\s*retries (\d+)/m.exec(backend)?.[1])).toBeGreaterThan(0);
    const server = /^\s*server-template .*$/m.exec(backend)?.[0] ?? "";
    expect(server).toMatch(/\bcheck\b/);
    const [, value, unit] = /\binter (\d+)(ms|s)\b/.exec(server) ?? [];
    expect(Number(value) * (unit === "s" ? 1000 : 1)).toBeLessThan(2_000);
    // No retry of a request that reached a replica (it may have been sent upstream): only failed connections.
    expect(backend).not.toMatch(/retry-on/);
  });
});

describe("deploy/kubernetes.yaml", () => {
  it("runs serve as serve reads it: known flags and variables, 3 replicas, MCP_STATE_SECRET", async () => {
    expect(await problems(kubernetes().replicas)).toEqual([]);
  });

  it("probes /healthz on the port served, shares state through its Redis Service, the secret from a Secret", () => {
    const { docs, container, replicas } = kubernetes();
    const port = Number(flag(replicas.args, "port"));
    expect(container.ports).toContainEqual({ name: "http", containerPort: port });
    for (const probe of [container.readinessProbe, container.livenessProbe])
      expect(probe.httpGet).toEqual({ path: "/healthz", port: "http" });
    const state = new URL(flag(replicas.args, "state") ?? "");
    const service = docs.find((doc) => doc.kind === "Service" && doc.metadata.name === state.hostname);
    expect(service?.spec.ports.map((p: Doc) => p.port)).toContain(Number(state.port));
    const redis = docs.find(
      (doc) => doc.kind === "StatefulSet" && doc.spec.template.metadata.labels.app === service?.spec.selector.app,
    );
    expect(redis?.spec.template.spec.containers[0].image).toMatch(/^(redis|valkey)/);
    // Every variable from the one Secret the file defines: no literal value, the same for all replicas.
    const secret = docs.find((doc) => doc.kind === "Secret");
    for (const variable of container.env as Doc[]) {
      expect(variable.valueFrom?.secretKeyRef?.name).toBe(secret?.metadata.name);
      expect(Object.keys(secret?.stringData)).toContain(variable.valueFrom.secretKeyRef.key);
    }
  });
});

describe("the README's Production section", () => {
  it("names the files and says what a 2025 client without stickiness gets, as the endpoint answers it", () => {
    const section = readFileSync(`${ROOT}docs/production.md`, "utf8");
    for (const file of ["compose.yaml", "kubernetes.yaml", "haproxy.cfg", "Dockerfile"])
      expect(section).toContain(file);
    const endpoint = readFileSync(`${ROOT}src/server/endpoint.ts`, "utf8");
    // The endpoint names the code (server/rpc-codes.ts): -32001, as the page says.
    expect(endpoint).toContain('status: 404, code: SESSION_NOT_FOUND, message: "Session not found"');
    expect(readFileSync(`${ROOT}src/server/rpc-codes.ts`, "utf8")).toContain("SESSION_NOT_FOUND = -32001;");
    expect(section).toMatch(/`404` with the JSON-RPC error `-32001`\s+"Session not found"/);
    // Every store the replicas share is named, and what stays per replica is said.
    const shared = section.slice(section.indexOf("- **Shared state**"));
    for (const store of [
      /rate-limit windows/,
      /client-credentials\s+token/,
      /signed in on all/,
      /approval and sign-in states are used once in all/,
    ])
      expect(shared).toMatch(store);
    expect(section).toMatch(/Sessions stay in the replica that opened them/);
  });
});

describe("the check itself", () => {
  it("names what serve would not read: a generated server's variable, a mistyped flag, one replica", async () => {
    const { replicas } = compose();
    const found = await problems({
      args: [...replicas.args, "--stateles"],
      env: [...replicas.env, "MCP_TRANSPORT"].filter((name) => name !== "MCP_STATE_SECRET"),
      replicas: 1,
    });
    expect(found.join("\n")).toMatch(/unknown option '--stateles'/);
    expect(found).toContain("serve does not read MCP_TRANSPORT");
    expect(found).toContain("1 replica(s)");
    expect(found).toContain("no MCP_STATE_SECRET: approvals resume only where asked");
  });
});
