// The calls part of the wire fingerprint: each setup served over HTTP by the library's server in process, and
// called by the SDK's real client in both protocol eras (2025: approval asked through elicitation; 2026-07-28:
// through input_required and a signed request state). Each call's line hashes the result (or protocol error), what
// the person was asked, every request that reached the upstream and the audit lines, with what changes from run to
// run (ports, times, span and session ids) taken out.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { sha } from "./listings.mjs";
import { held, setups } from "./scenarios.mjs";

const ERAS = ["legacy", "2026-07-28"];

export async function callLines({ lib, server, up, temp }) {
  const lines = [];
  for (const setup of setups({ lib, up, temp })) {
    for (const era of ERAS) {
      const audit = [];
      const provider = await setup.build({ audit: { write: (record) => audit.push(record) } });
      const http = await server.serveHttp({
        provider,
        name: "fp",
        version: "1.0.0",
        host: "127.0.0.1",
        port: 0,
        log() {},
      });
      for (const call of setup.calls) {
        up.reset();
        audit.length = 0;
        for (const [method, path, ...replies] of call.routes ?? []) up.on(method, path, ...replies);
        const asked = [];
        const client = await connect({ url: http.url, era, call, asked });
        const outcome = call.overlap ? await overlap({ client, up, call }) : await callOnce({ client, call });
        await client.close();
        const seen = { outcome, asked, requests: up.requests, audit: audit.map(auditLine) };
        const shown = normalize({ text: JSON.stringify(seen), ports: [up.port, http.port] });
        lines.push(`call ${setup.name} ${era} ${call.what}: ${sha(shown)}`);
      }
      await http.close();
    }
  }
  return lines;
}

async function connect({ url, era, call, asked }) {
  const form = call.elicit ? { capabilities: { elicitation: { form: {} } } } : {};
  const client = new Client(
    { name: "fp", version: "0.0.0" },
    { versionNegotiation: { mode: era === "legacy" ? "legacy" : { pin: era } }, ...form },
  );
  if (call.elicit)
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params);
      return call.elicit;
    });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function callOnce({ client, call }) {
  try {
    const params = { name: call.tool, arguments: call.args, ...(call.meta ? { _meta: call.meta } : {}) };
    return { result: await client.callTool(params) };
  } catch (error) {
    return { error: { code: error.code, message: error.message } };
  }
}

/** Two calls to one origin whose limit is one call in flight and none waiting: the second is refused. */
async function overlap({ client, up, call }) {
  const { tool, args } = call.overlap;
  const hold = held();
  up.on("GET", `/v1/anything/${args.name}`, hold.reply);
  const first = client.callTool({ name: tool, arguments: args });
  await hold.arrived;
  const second = await client.callTool({ name: tool, arguments: args });
  hold.release();
  return { first: await first, second };
}

function auditLine({ time: _time, durationMs: _duration, session: _session, spanId, ...rest }) {
  return spanId === undefined ? rest : { ...rest, spanId: "SPAN" };
}

export function normalize({ text, ports }) {
  let shown = text;
  for (const port of ports) shown = shown.replaceAll(`:${port}`, ":PORT");
  return shown.replace(/(00-[0-9a-f]{32}-)[0-9a-f]{16}(-0[01])/g, "$1SPAN$2");
}
