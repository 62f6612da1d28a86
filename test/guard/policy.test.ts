// Policies and the approval gate, through the SDK client against the real engine as `serve` sets it up (settings,
// --policy entries, action definitions): the default (destructive=approve) asks the human through elicitation;
// accept sends, decline/cancel/no answer in time/a client that cannot be asked send nothing and say why; deny
// hides the tool (or, configured so, lists it and refuses it); `approval: true` in a definition cannot be lifted.

import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../src/app/serve.js";
import { type EngineSetupOptions, setUpEngine } from "../../src/app/setup.js";
import { runCli } from "../support/cli.js";
import { example } from "../support/fixtures.js";
import {
  APPROVE,
  connectProvider,
  type Elicit,
  type InProcess,
  serveOverStdio,
  tempDir,
  textOf,
  writeFile,
} from "../support/guard.js";
import { json, status, Upstream } from "../support/upstream.js";

const PETSTORE = example("petstore.openapi.yaml");
const ENV = { API_KEY_API_KEY: "pk-policy-1" };
const PET = { id: 7, name: "Rex", kind: { species: "dog" } };

let api: Upstream;
let temp: ReturnType<typeof tempDir>;
const open: InProcess[] = [];

beforeAll(async () => {
  api = await Upstream.start();
  temp = tempDir();
});
afterAll(async () => {
  await api.close();
  temp.remove();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  api.reset();
});

function routes(): void {
  api.on("DELETE", /^\/v1\/pets\/\d+$/, status(204));
  api.on("GET", /^\/v1\/pets\/\d+$/, json(PET));
  api.on("GET", "/v1/pets", json([PET]));
  api.on("POST", "/v1/pets", json(PET, { status: 201 }));
  api.on("POST", "/v1/widgets", json({ id: "w1" }));
  api.on("GET", /^\/v1\/widgets\//, json({ id: "w1" }));
}

/** The petstore example as `serve` would set it up, behind an in-process client. */
async function connect(options: EngineSetupOptions = {}, elicit?: Elicit, source = PETSTORE): Promise<InProcess> {
  routes();
  const { engine } = await setUpEngine(source, { baseUrl: `${api.url}/v1`, env: ENV, log: () => {}, ...options });
  const connected = await connectProvider(engine, elicit ? { elicit } : {});
  open.push(connected);
  return connected;
}

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const callTool = async (c: InProcess, name: string, args: Record<string, unknown>): Promise<Result> =>
  (await c.client.callTool({ name, arguments: args })) as Result;
const deletes = (): number => api.requests.filter((r) => r.method === "DELETE").length;
const toolNames = async (c: InProcess | { client: Client }): Promise<string[]> =>
  (await c.client.listTools()).tools.map((t) => t.name);

describe("the default policy (destructive=approve), with a client that can be asked", () => {
  it("lists deletePet as destructive, asks before it, and sends it once approved", async () => {
    const c = await connect({}, APPROVE);
    const listed = (await c.client.listTools()).tools.find((t) => t.name === "deletePet");
    expect(listed?.annotations).toMatchObject({ destructiveHint: true });
    const result = await callTool(c, "deletePet", { petId: 7 });
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["DELETE /v1/pets/7"]);
    expect(api.only().headers["x-api-key"]).toBe(ENV.API_KEY_API_KEY);
    expect(c.asked).toHaveLength(1);
    for (const shown of [
      "deletePet",
      "deletes data",
      `DELETE ${api.url}/v1/pets/7`,
      '"petId": 7',
      "Nothing is sent unless you approve",
    ]) {
      expect(c.asked[0]).toContain(shown);
    }
    expect(c.asked[0]).not.toContain(ENV.API_KEY_API_KEY);
  });

  it("reads and writes are not asked about", async () => {
    const c = await connect({}, APPROVE);
    expect((await callTool(c, "getPet", { petId: 7 })).isError ?? false).toBe(false);
    expect((await callTool(c, "createPet", { body: { name: "Rex", kind: { species: "dog" } } })).isError ?? false).toBe(
      false,
    );
    expect(c.asked).toEqual([]);
  });

  it.each<[string, Elicit, string]>([
    ["declining", () => ({ action: "decline" }), "declined"],
    ["cancelling", () => ({ action: "cancel" }), "cancelled"],
    ["accepting with approve unticked", () => ({ action: "accept", content: { approve: false } }), "declined"],
  ])("%s: nothing is sent, and the result says it was not approved", async (_, elicit, phrase) => {
    const c = await connect({}, elicit);
    const result = await callTool(c, "deletePet", { petId: 7 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("deletePet was not sent");
    expect(textOf(result)).toContain(phrase);
    expect(c.asked).toHaveLength(1);
    expect(deletes()).toBe(0);
  });

  it("no answer within approvalTimeoutMs: nothing is sent, then or later", async () => {
    const never: Elicit = (_, signal) =>
      new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("withdrawn"))));
    const c = await connect({ approvalTimeoutMs: 300 }, never);
    const started = Date.now();
    const result = await callTool(c, "deletePet", { petId: 7 });
    const elapsed = Date.now() - started;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("nobody approved it in time");
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
    expect(c.asked[0]).toContain("No answer within 300 ms counts as no");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(deletes()).toBe(0);
  });
});

describe("a client without elicitation", () => {
  it("gets an error result saying approval is required and how to allow the tool; nothing is sent", async () => {
    const c = await connect();
    const result = await callTool(c, "deletePet", { petId: 7 });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain("needs a person's approval");
    expect(text).toContain("cannot ask for it");
    expect(text).toContain("--policy deletePet=allow");
    expect(deletes()).toBe(0);
  });
});

describe("over streamable HTTP", () => {
  it("stateless (which cannot ask): even a client that declares elicitation is refused, not let through", async () => {
    routes();
    const running = await serve(PETSTORE, {
      transport: "http",
      port: 0,
      stateless: true,
      baseUrl: `${api.url}/v1`,
      env: ENV,
      log: () => {},
    });
    const client = new Client(
      { name: "guard-http", version: "0.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { approve: true } }));
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
      const result = (await client.callTool({ name: "deletePet", arguments: { petId: 7 } })) as Result;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("needs a person's approval");
      expect(deletes()).toBe(0);
    } finally {
      await client.close();
      await running.close();
    }
  });

  it("stateful: a client that can be asked approves, and the DELETE is sent", async () => {
    routes();
    const running = await serve(PETSTORE, {
      transport: "http",
      port: 0,
      baseUrl: `${api.url}/v1`,
      env: ENV,
      log: () => {},
    });
    const client = new Client(
      { name: "guard-http", version: "0.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { approve: true } };
    });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url!)));
      const result = (await client.callTool({ name: "deletePet", arguments: { petId: 9 } })) as Result;
      expect(result.isError ?? false, textOf(result)).toBe(false);
      expect(asked).toHaveLength(1);
      expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /v1/pets/9"]);
    } finally {
      await client.close();
      await running.close();
    }
  });
});

describe("a 2026-07-28 client (asked through input_required, not an elicitation request)", () => {
  it.each([false, true])(
    "over HTTP (stateless %s): asked once, and the call is sent once approved",
    async (stateless) => {
      routes();
      const running = await serve(PETSTORE, {
        transport: "http",
        port: 0,
        stateless,
        baseUrl: `${api.url}/v1`,
        env: ENV,
        log: () => {},
      });
      const client = new ModernClient(
        { name: "guard-modern", version: "0.0.0" },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      const asked: unknown[] = [];
      client.setRequestHandler("elicitation/create", (request) => {
        asked.push(request);
        return { action: "accept", content: { approve: true } };
      });
      try {
        await client.connect(new ModernTransport(new URL(running.url!)));
        expect(client.getProtocolEra()).toBe("modern");
        const result = (await client.callTool({ name: "deletePet", arguments: { petId: 7 } })) as Result;
        expect(result.isError ?? false, textOf(result)).toBe(false);
        expect(asked).toHaveLength(1);
        expect(deletes()).toBe(1);
        // Tools that need no approval are called as usual, without asking.
        const pet = (await client.callTool({ name: "getPet", arguments: { petId: 7 } })) as Result;
        expect(pet.isError ?? false, textOf(pet)).toBe(false);
        expect(asked).toHaveLength(1);
      } finally {
        await client.close();
        await running.close();
      }
    },
  );
});

describe("deny", () => {
  it("--policy deletePet=deny: not in tools/list, and calling it is a JSON-RPC unknown-tool error", async () => {
    const c = await connect({ policies: ["deletePet=deny"] }, APPROVE);
    const names = await toolNames(c);
    expect(names).not.toContain("deletePet");
    expect(names).toContain("getPet");
    const error = await c.client.callTool({ name: "deletePet", arguments: { petId: 7 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain("Unknown tool: deletePet");
    expect(c.asked).toEqual([]);
    expect(deletes()).toBe(0);
  });

  it("a class: --policy write=deny hides every POST tool", async () => {
    const c = await connect({ policies: ["write=deny"] });
    expect((await toolNames(c)).sort()).toEqual(["deletePet", "getPet", "listPets"]);
  });

  it("deny mode refuse: listed, and a call is an error result naming the policy; nothing is sent", async () => {
    const c = await connect({ policies: ["deletePet=deny"], deniedTools: "refuse" }, APPROVE);
    expect(await toolNames(c)).toContain("deletePet");
    const result = await callTool(c, "deletePet", { petId: 7 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("deletePet is not allowed on this server (policy deletePet=deny)");
    expect(c.asked).toEqual([]);
    expect(deletes()).toBe(0);
  });

  it("from the command line: `serve --policy deletePet=deny` hides it; an unknown tool name in --policy stops the start", async () => {
    routes();
    const server = await serveOverStdio([PETSTORE, "--base-url", `${api.url}/v1`, "--policy", "deletePet=deny"], {
      env: ENV,
      elicit: APPROVE,
    });
    try {
      expect(await toolNames(server)).not.toContain("deletePet");
      const error = await server.client
        .callTool({ name: "deletePet", arguments: { petId: 7 } })
        .catch((e: unknown) => e);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    } finally {
      await server.close();
    }
    expect(deletes()).toBe(0);
    const bad = await runCli(["serve", PETSTORE, "--policy", "deletePets=deny"], { env: ENV });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("there is no tool named 'deletePets'");
    expect(bad.stderr).toContain("did you mean 'deletePet'");
  });
});

describe("`approval: true` in an action definition", () => {
  function definition(): string {
    return writeFile(temp.dir, "widgets.actions.json", {
      name: "widgets",
      baseUrl: `${api.url}/v1`,
      actions: [
        {
          name: "create_widget",
          description: "Create a widget.",
          method: "POST",
          path: "/widgets",
          approval: true,
          inputSchema: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
        },
        {
          name: "get_widget",
          description: "Get one.",
          method: "GET",
          path: "/widgets/{id}",
          inputSchema: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
        },
      ],
    });
  }

  it("asks before a write, and a policy of allow does not lift it", async () => {
    const source = definition();
    for (const policies of [[], ["create_widget=allow"], ["write=allow"]]) {
      const declined = await connect({ policies }, () => ({ action: "decline" }), source);
      const result = await callTool(declined, "create_widget", { name: "w" });
      expect(result.isError, JSON.stringify(policies)).toBe(true);
      expect(textOf(result)).toContain("declined");
      expect(declined.asked).toHaveLength(1);
    }
    expect(api.requests.filter((r) => r.method === "POST")).toEqual([]);
    const accepted = await connect({ policies: ["create_widget=allow"] }, APPROVE, source);
    expect((await callTool(accepted, "create_widget", { name: "w" })).isError ?? false).toBe(false);
    expect(accepted.asked[0]).toContain(`POST ${api.url}/v1/widgets`);
    expect(api.requests.map((r) => `${r.method} ${r.path} ${r.body.toString()}`)).toEqual([
      'POST /v1/widgets {"name":"w"}',
    ]);
    // Its other action is not asked about; deny still wins over approval.
    expect((await callTool(accepted, "get_widget", { id: "w1" })).isError ?? false).toBe(false);
    expect(accepted.asked).toHaveLength(1);
    const denied = await connect({ policies: ["create_widget=deny"] }, APPROVE, source);
    expect(await toolNames(denied)).toEqual(["get_widget"]);
  });
});

describe("policies from a settings file", () => {
  it("apply (classes, tools, deny mode, approval timeout), and --policy entries win over them", async () => {
    const config = writeFile(temp.dir, "policy.settings.json", {
      policy: { write: "deny", deletePet: "allow", read: "approve" },
      approvalTimeoutSeconds: 0.3,
    });
    // deletePet allowed: sent without asking, to a client that could not be asked anyway.
    const plain = await connect({ config });
    expect((await toolNames(plain)).sort()).toEqual(["deletePet", "getPet", "listPets"]);
    expect((await callTool(plain, "deletePet", { petId: 3 })).isError ?? false).toBe(false);
    expect(deletes()).toBe(1);
    // read=approve: a GET now needs approval, and the settings' 0.3 s timeout applies.
    const silent = await connect(
      { config },
      (_, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("withdrawn")))),
    );
    const started = Date.now();
    const result = await callTool(silent, "getPet", { petId: 3 });
    expect(textOf(result)).toContain("nobody approved it in time");
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(api.requests.filter((r) => r.method === "GET")).toEqual([]);
    // The command line wins: deletePet=approve again.
    const overridden = await connect({ config, policies: ["deletePet=approve"] });
    expect(textOf(await callTool(overridden, "deletePet", { petId: 4 }))).toContain("needs a person's approval");
    expect(deletes()).toBe(1);

    const refusing = writeFile(temp.dir, "refuse.settings.json", {
      policy: { deletePet: "deny" },
      deniedTools: "refuse",
    });
    const listed = await connect({ config: refusing });
    expect(await toolNames(listed)).toContain("deletePet");
    expect(textOf(await callTool(listed, "deletePet", { petId: 5 }))).toContain(
      "not allowed on this server (policy deletePet=deny)",
    );
    expect(deletes()).toBe(1);
  });
});
