// The served part of the wire fingerprint: `serve` as the CLI runs it (settings file with profiles, endpoint auth
// with static tokens, an audit log file, --watch), in each mode and protocol era, listed and called by the SDK's
// real client as two callers of different profiles. What the providers wrapping the engine (profiles, the
// registry's swap, the serialized listing, dynamic and code mode) change shows here.

import { readFileSync, writeFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { normalize } from "./calls.mjs";
import { sha } from "./listings.mjs";
import { json, status } from "./upstream.mjs";

const TOKENS = { alice: "alice-token-0123456789abcdef0123456789", bob: "bob-token-0123456789abcdef0123456789abc" };
const PROFILES = {
  pets: { match: { token: "alice" }, include: ["tag:pets"], rateLimits: { calls: { requests: 3, windowSeconds: 60 } } },
  browse: { match: { token: "bob" }, include: ["op:listPets"] },
};
const YES = { action: "accept", content: { approve: true } };

export async function servedLines({ lib, up, temp }) {
  process.env.FINGERPRINT_TOKENS = `alice=${TOKENS.alice}, bob=${TOKENS.bob}`;
  const config = `${temp}/profiles.json`;
  writeFileSync(config, JSON.stringify({ profiles: PROFILES }));
  const lines = [];
  let runs = 0;
  for (const mode of ["tools", "dynamic", "code"]) {
    for (const watch of [false, true]) {
      for (const era of ["legacy", "2026-07-28"]) {
        const auditLog = `${temp}/served-${++runs}.jsonl`;
        writeFileSync(auditLog, "");
        const running = await lib.serve("examples/petstore.openapi.yaml", {
          transport: "http",
          host: "127.0.0.1",
          port: 0,
          mode,
          watch,
          config,
          auditLog,
          baseUrl: `${up.url}/v1`,
          allowInsecureHttp: true,
          env: { API_KEY_API_KEY: "pk-fingerprint-1" },
          auth: { type: "static", tokenEnv: "FINGERPRINT_TOKENS" },
          cache: false,
          log: () => {},
        });
        up.reset();
        up.on("GET", "/v1/pets/7", json({ id: 7, name: "Rex", kind: { species: "dog" } }));
        up.on("DELETE", "/v1/pets/7", status(204));
        up.on("GET", "/v1/pets", json([{ id: 1, name: "a", kind: { species: "dog" } }]));
        const alice = await connect({ url: running.url, era, token: TOKENS.alice });
        const bob = await connect({ url: running.url, era, token: TOKENS.bob });
        const seen = {
          lists: [await alice.listTools(), await bob.listTools()],
          calls: [],
        };
        for (const [client, name, args] of callsOf(mode, { alice, bob })) {
          try {
            seen.calls.push(await client.callTool({ name, arguments: args }));
          } catch (error) {
            seen.calls.push({ error: { code: error.code, message: error.message } });
          }
        }
        await alice.close();
        await bob.close();
        await running.close();
        seen.requests = up.requests;
        seen.audit = readFileSync(auditLog, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => {
            const { time: _t, durationMs: _d, session: _s, ...rest } = JSON.parse(line);
            return rest;
          });
        const port = Number(new URL(running.url).port);
        lines.push(
          `served ${mode} watch=${watch} ${era}: ${sha(normalize({ text: JSON.stringify(seen), ports: [up.port, port] }))}`,
        );
      }
    }
  }
  return lines;
}

/** The same calls in each mode: getPet, deletePet (approved), listPets, and one outside bob's profile. */
function callsOf(mode, { alice, bob }) {
  const calls = [
    [alice, "getPet", { petId: 7 }],
    [alice, "deletePet", { petId: 7 }],
    [bob, "listPets", {}],
    [bob, "getPet", { petId: 7 }],
    [alice, "getPet", { petId: 7 }],
    [alice, "getPet", { petId: 7 }],
  ];
  if (mode === "dynamic")
    return [
      [alice, "search_tools", { query: "pets" }],
      ...calls.map(([client, name, args]) => [client, "call_tool", { name, arguments: args }]),
    ];
  if (mode === "code")
    return [
      [bob, "search_tools", { query: "pets" }],
      ...calls.map(([client, name, args]) => [
        client,
        "execute",
        { code: `return await api.${name}(${JSON.stringify(args)});` },
      ]),
    ];
  return calls;
}

async function connect({ url, era, token }) {
  const options = { capabilities: { elicitation: { form: {} } } };
  const client = new Client(
    { name: "fp", version: "0.0.0" },
    { versionNegotiation: { mode: era === "legacy" ? "legacy" : { pin: era } }, ...options },
  );
  client.setRequestHandler("elicitation/create", () => YES);
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
