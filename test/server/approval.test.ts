// The approval gate's binding: a call's `context.approve` becomes an MCP form elicitation to the SDK's real Client,
// and the client's answer (accept, decline, cancel, none in time, or no elicitation at all) comes back as an
// ApprovalAnswer. A fake provider stands in for the engine: it asks, records the answer and reports it.

import type { Client as ClientType } from "@modelcontextprotocol/sdk/client/index.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/server";
import {
  type ClientCapabilities,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ListedTool } from "../../src/catalog/listing.js";
import type {
  ApprovalAnswer,
  ApprovalRequest,
  CallContext,
  ToolProvider,
  ToolResult,
} from "../../src/runtime/types.js";
import { CallTracker } from "../../src/server/calls.js";
import { APPROVAL_SCHEMA } from "../../src/server/approval-question.js";
import { approvalMessage } from "../../src/runtime/approvals/approval-message.js";
import { askApproval, createMcpServer } from "../../src/server/mcp.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../../src/runtime/options.js";

const TOOL: ListedTool = {
  name: "deleteUser",
  title: "Delete a user",
  description: "Deletes a user.",
  inputSchema: { type: "object", properties: { id: { type: "string" }, timeoutMs: { type: "number" } } },
  annotations: {
    title: "Delete a user",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: true,
  },
};

function approvalRequest(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    tool: "deleteUser",
    title: "Delete a user",
    method: "DELETE",
    url: "https://api.example.com/v1/users/42?api_key=****",
    arguments: { id: "42", note: "requested by ops" },
    effect: "destructive",
    timeoutMs: 5000,
    ...overrides,
  };
}

/** Asks for approval on every call, as the engine would for a tool whose policy is "approve". */
class ApprovingProvider implements ToolProvider {
  readonly answers: Array<ApprovalAnswer | "no approve in context"> = [];
  readonly signals: AbortSignal[] = [];
  private started: Array<() => void> = [];

  listTools(): ListedTool[] {
    return [TOOL];
  }

  hasTool(name: string): boolean {
    return name === TOOL.name;
  }

  async callTool(_name: string, args: unknown, context: CallContext = {}): Promise<ToolResult> {
    if (context.signal) this.signals.push(context.signal);
    for (const resolve of this.started.splice(0)) resolve();
    if (!context.approve) {
      this.answers.push("no approve in context");
      return { content: [{ type: "text", text: "approval required" }], isError: true };
    }
    const { timeoutMs } = (args ?? {}) as { timeoutMs?: number };
    const answer = await context.approve(approvalRequest(timeoutMs === undefined ? {} : { timeoutMs }));
    this.answers.push(answer);
    if (answer === "accept") return { content: [{ type: "text", text: "deleted" }] };
    return { content: [{ type: "text", text: `not approved: ${answer}` }], isError: true };
  }

  /** Resolves once a call has started. */
  callStarted(): Promise<void> {
    return new Promise((resolve) => this.started.push(resolve));
  }
}

type Handler = (request: ElicitRequest, extra: { signal: AbortSignal }) => Promise<ElicitResult>;

interface Connected {
  client: ClientType;
  provider: ApprovingProvider;
  server: Server;
  /** Every message the server sent, with the options it was sent with. */
  sent: Array<{ message: JSONRPCMessage; relatedRequestId: string | number | undefined }>;
  /** The elicitation requests the client's handler received. */
  asked: ElicitRequest[];
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect({
  capabilities,
  handler,
}: {
  capabilities?: ClientCapabilities;
  handler?: Handler;
}): Promise<Connected> {
  const provider = new ApprovingProvider();
  const server = createMcpServer({ provider, name: "test", version: "0.0.0", calls: new CallTracker() });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: Connected["sent"] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    sent.push({ message, relatedRequestId: options?.relatedRequestId });
    return send(message, options);
  };
  const client = new Client({ name: "test-client", version: "0.0.0" }, capabilities ? { capabilities } : {});
  const asked: ElicitRequest[] = [];
  if (handler) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      asked.push(request);
      return handler(request, extra);
    });
  }
  await server.connect(serverSide);
  await client.connect(clientSide);
  open.push(client, server);
  return { client, provider, server, sent, asked };
}

const FORM: ClientCapabilities = { elicitation: { form: {} } };
const answer =
  (result: ElicitResult): Handler =>
  async () =>
    result;

function elicitations(sent: Connected["sent"]) {
  return sent.filter(({ message }) => "method" in message && message.method === "elicitation/create");
}

/** The ids of the requests the server told the client it no longer waits for. */
function cancelled(sent: Connected["sent"]): unknown[] {
  return sent.flatMap(({ message }) =>
    "method" in message && message.method === "notifications/cancelled" ? [message.params?.requestId] : [],
  );
}

/** The id of the last elicitation request sent. */
function lastElicitationId(sent: Connected["sent"]): unknown {
  const last = elicitations(sent).at(-1)?.message;
  return last && "id" in last ? last.id : undefined;
}

/**
 * The SDK client ignores notifications/cancelled for request id 0 (`if (!requestId) return`), and a session's
 * first server-to-client request has id 0: one answered question first, so the one under test is withdrawable.
 */
async function warmUp(client: ClientType): Promise<void> {
  await client.callTool({ name: "deleteUser", arguments: {} });
}

describe("approval through elicitation", () => {
  it.each<{ name: string; result: ElicitResult; want: ApprovalAnswer }>([
    { name: "accept with approve ticked", result: { action: "accept", content: { approve: true } }, want: "accept" },
    {
      name: "accept with approve unticked",
      result: { action: "accept", content: { approve: false } },
      want: "decline",
    },
    { name: "accept with no content", result: { action: "accept" }, want: "decline" },
    { name: "decline", result: { action: "decline" }, want: "decline" },
    { name: "cancel", result: { action: "cancel" }, want: "cancel" },
    // The SDK checks accepted content against the requested schema (approve is required): unreadable, so no.
    { name: "accept with content missing approve", result: { action: "accept", content: {} }, want: "cancel" },
    {
      name: "accept with approve not a boolean",
      result: { action: "accept", content: { approve: "yes" } },
      want: "cancel",
    },
  ])("$name → $want", async ({ result, want }) => {
    const { client, provider } = await connect({ capabilities: FORM, handler: answer(result) });
    const called = await client.callTool({ name: "deleteUser", arguments: { id: "42" } });
    expect(provider.answers).toEqual([want]);
    expect(called.isError ?? false).toBe(want !== "accept");
  });

  it("shows tool, title, method, URL and arguments, and asks for one boolean, on the call's own stream", async () => {
    const { client, asked, sent } = await connect({
      capabilities: FORM,
      handler: answer({ action: "accept", content: { approve: true } }),
    });
    await client.callTool({ name: "deleteUser", arguments: { id: "42" } });
    expect(asked).toHaveLength(1);
    const params = asked[0]!.params;
    expect(params).toMatchObject({ mode: "form", requestedSchema: APPROVAL_SCHEMA });
    expect(params.message).toBe(approvalMessage(approvalRequest()));
    for (const shown of [
      "deleteUser",
      "Delete a user",
      "DELETE https://api.example.com/v1/users/42?api_key=****",
      '"id": "42"',
      '"note": "requested by ops"',
    ]) {
      expect(params.message).toContain(shown);
    }
    // Over HTTP, relatedRequestId puts the question on the tools/call request's stream.
    const callResult = sent.find(({ message }) => "result" in message && "content" in message.result)?.message;
    const [elicitation] = elicitations(sent);
    expect(elicitation?.relatedRequestId).toBeDefined();
    expect(elicitation?.relatedRequestId).toBe((callResult as { id: number }).id);
  });

  it("takes the SDK's empty elicitation capability (protocol 2025-06-18) as form support", async () => {
    const { client, provider } = await connect({
      capabilities: { elicitation: {} },
      handler: answer({ action: "accept", content: { approve: true } }),
    });
    await client.callTool({ name: "deleteUser", arguments: {} });
    expect(provider.answers).toEqual(["accept"]);
  });

  it("applies the default (ticked) for a client that applies defaults and sends no value", async () => {
    const { client, provider } = await connect({
      capabilities: { elicitation: { form: { applyDefaults: true } } },
      handler: answer({ action: "accept", content: {} }),
    });
    await client.callTool({ name: "deleteUser", arguments: {} });
    expect(provider.answers).toEqual(["accept"]);
  });

  it("answers timeout when the human does not answer in time, and withdraws the question", async () => {
    let withdrawn: AbortSignal | undefined;
    let first = true;
    const { client, provider, sent } = await connect({
      capabilities: FORM,
      handler: (_, extra) => {
        if (first) {
          first = false;
          return Promise.resolve({ action: "decline" });
        }
        withdrawn = extra.signal;
        return new Promise(() => {});
      },
    });
    await warmUp(client);
    const started = Date.now();
    const called = await client.callTool({ name: "deleteUser", arguments: { timeoutMs: 150 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(provider.answers).toEqual(["decline", "timeout"]);
    expect(called).toMatchObject({ isError: true, content: [{ text: "not approved: timeout" }] });
    // The server withdrew the question; the client got notifications/cancelled and aborted its handler.
    expect(cancelled(sent)).toEqual([lastElicitationId(sent)]);
    await expect.poll(() => withdrawn?.aborted).toBe(true);
  });

  it("withdraws a session's first question too (id 0, which the SDK client does not act on)", async () => {
    const { client, provider, sent } = await connect({ capabilities: FORM, handler: () => new Promise(() => {}) });
    await client.callTool({ name: "deleteUser", arguments: { timeoutMs: 50 } });
    expect(provider.answers).toEqual(["timeout"]);
    expect(lastElicitationId(sent)).toBe(0);
    expect(cancelled(sent)).toEqual([0]);
  });

  it("answers cancel when the call itself is cancelled while the human is being asked, and withdraws the question", async () => {
    let withdrawn: AbortSignal | undefined;
    let asked!: () => void;
    const askedPromise = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let first = true;
    const { client, provider, sent } = await connect({
      capabilities: FORM,
      handler: (_, extra) => {
        if (first) {
          first = false;
          return Promise.resolve({ action: "decline" });
        }
        withdrawn = extra.signal;
        asked();
        return new Promise(() => {});
      },
    });
    await warmUp(client);
    const controller = new AbortController();
    const call = client.callTool({ name: "deleteUser", arguments: { timeoutMs: 60_000 } }, undefined, {
      signal: controller.signal,
    });
    call.catch(() => {});
    await askedPromise;
    controller.abort("user pressed stop");
    await expect(call).rejects.toThrow();
    await expect.poll(() => provider.answers).toEqual(["decline", "cancel"]);
    expect(provider.signals[1]?.aborted).toBe(true);
    expect(cancelled(sent)).toEqual([lastElicitationId(sent)]);
    await expect.poll(() => withdrawn?.aborted).toBe(true);
  });

  it("answers cancel when the client's handler fails", async () => {
    const { client, provider } = await connect({
      capabilities: FORM,
      handler: async () => {
        throw new Error("the dialog crashed");
      },
    });
    await client.callTool({ name: "deleteUser", arguments: {} });
    expect(provider.answers).toEqual(["cancel"]);
  });

  it.each<[string, ClientCapabilities | undefined]>([
    ["no capabilities", undefined],
    ["other capabilities", { roots: {}, sampling: {} }],
    ["URL elicitation only", { elicitation: { url: {} } }],
  ])("answers unsupported for a client with %s, and sends it nothing", async (_, capabilities) => {
    const { client, provider, sent } = await connect(capabilities ? { capabilities } : {});
    const called = await client.callTool({ name: "deleteUser", arguments: {} });
    expect(provider.answers).toEqual(["unsupported"]);
    expect(called).toMatchObject({ isError: true, content: [{ text: "not approved: unsupported" }] });
    expect(elicitations(sent)).toEqual([]);
  });

  it("asks once per call, for concurrent calls each with its own answer", async () => {
    let count = 0;
    const { client, provider } = await connect({
      capabilities: FORM,
      handler: async () => {
        count++;
        return count % 2 === 1 ? { action: "accept", content: { approve: true } } : { action: "decline" };
      },
    });
    await Promise.all([1, 2, 3, 4].map(() => client.callTool({ name: "deleteUser", arguments: {} })));
    expect(count).toBe(4);
    expect([...provider.answers].sort()).toEqual(["accept", "accept", "decline", "decline"]);
  });
});

describe("askApproval", () => {
  /** A stand-in for the SDK Server: its capabilities, and what elicitInput does. */
  function fakeServer({
    capabilities,
    elicitInput,
  }: {
    capabilities?: ClientCapabilities;
    elicitInput?: Server["elicitInput"];
  }) {
    const calls: Array<Parameters<Server["elicitInput"]>> = [];
    const server = {
      getClientCapabilities: () => capabilities,
      elicitInput: (...args: Parameters<Server["elicitInput"]>) => {
        calls.push(args);
        return elicitInput ? elicitInput(...args) : Promise.resolve({ action: "accept", content: { approve: true } });
      },
    } as unknown as Server;
    return { server, calls };
  }

  it("does not ask when the call is already cancelled", async () => {
    const { server, calls } = fakeServer({ capabilities: FORM });
    const controller = new AbortController();
    controller.abort();
    expect(await askApproval({ server, request: approvalRequest(), signal: controller.signal })).toBe("cancel");
    expect(calls).toEqual([]);
  });

  it.each<[string, number, number]>([
    ["the request's timeout", 1234, 1234],
    ["5 minutes when the request names none", 0, DEFAULT_APPROVAL_TIMEOUT_MS],
    ["5 minutes for a nonsense timeout", Number.NaN, DEFAULT_APPROVAL_TIMEOUT_MS],
    ["at most what a timer can hold", 10 * 2 ** 31, 2 ** 31 - 1],
  ])("waits %s", async (_, timeoutMs, want) => {
    const { server, calls } = fakeServer({ capabilities: FORM });
    await askApproval({ server, request: approvalRequest({ timeoutMs }), relatedRequestId: 7 });
    expect(calls[0]?.[1]).toMatchObject({ timeout: want, relatedRequestId: 7 });
  });

  it("answers unsupported when the client has no handler after all (method not found)", async () => {
    const { McpError, ErrorCode } = await import("@modelcontextprotocol/sdk/types.js");
    const { server } = fakeServer({
      capabilities: FORM,
      elicitInput: () => Promise.reject(new McpError(ErrorCode.MethodNotFound, "Method not found")),
    });
    expect(await askApproval({ server, request: approvalRequest() })).toBe("unsupported");
  });

  it("logs an unexpected failure without the arguments", async () => {
    const lines: string[] = [];
    const { server } = fakeServer({
      capabilities: FORM,
      elicitInput: () => Promise.reject(new Error("Not connected")),
    });
    expect(await askApproval({ server, request: approvalRequest(), log: (line) => lines.push(line) })).toBe("cancel");
    expect(lines).toEqual(["approval request for deleteUser failed: Not connected"]);
  });
});

describe("approvalMessage", () => {
  it("reads as a question with everything the human needs", () => {
    expect(approvalMessage(approvalRequest({ arguments: { id: "42" }, timeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS }))).toBe(
      [
        "Approve this call? It deletes data, which may not be undoable.",
        "",
        "Tool: deleteUser (Delete a user)",
        "Request: DELETE https://api.example.com/v1/users/42?api_key=****",
        "Arguments:",
        "{",
        '  "id": "42"',
        "}",
        "",
        "Nothing is sent unless you approve. No answer within 5 minutes counts as no.",
      ].join("\n"),
    );
  });

  it.each<[string, Partial<ApprovalRequest>, string]>([
    ["a write", { effect: "write", method: "POST" }, "It changes data."],
    ["a read", { effect: "read", method: "GET" }, "It reads data."],
    ["a title that is just the name", { title: "deleteUser" }, "Tool: deleteUser\n"],
    ["no arguments", { arguments: {} }, "Arguments:\n{}\n"],
    ["a short timeout", { timeoutMs: 30_000 }, "within 30 seconds"],
    ["a long timeout", { timeoutMs: 4 * 3_600_000 }, "within 4 hours"],
  ])("%s", (_, overrides, want) => {
    expect(approvalMessage(approvalRequest(overrides))).toContain(want);
  });

  it("cuts long arguments and says so before them, with how many of how many characters are shown", () => {
    const message = approvalMessage(approvalRequest({ arguments: { blob: "x".repeat(10_000) } }));
    expect(message.length).toBeLessThan(4500);
    const lines = message.split("\n");
    // 10,000 x's, the key, quotes and indented braces: 10,016 characters of JSON.
    expect(lines[4]).toBe("Arguments, shown in part: the first 4,000 of 10,016 characters (6,016 not shown):");
    expect(lines[5]).toBe("{");
    expect(message).toContain("\n… (6,016 more characters not shown)\n");
  });
});
