// Tool search on specs written unlike GitHub's: no summaries (the title is the operation's id), descriptions in
// HTML, POST for updates, deprecated operations kept beside their replacements, ids in the request. Each case is a
// rule that holds for any API, not a word list.

import { beforeAll, describe, expect, it } from "vitest";
import type { Catalog, Tool } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { ToolSearch } from "../../src/runtime/modes/search/search.js";

let base: Tool;
beforeAll(async () => {
  const petstore: Catalog = await loadCatalog("examples/petstore.openapi.yaml");
  base = petstore.tools[0]!;
});

/** A tool without a summary: its title is its name, as the catalog makes it then. */
function tool({
  name,
  description,
  method = "GET",
  path = "/things",
}: {
  name: string;
  description: string;
  method?: Tool["operation"]["method"];
  path?: string;
}): Tool {
  return {
    ...base,
    name,
    title: name,
    description,
    origin: { ...base.origin, tags: [] },
    operation: { ...base.operation, method, path },
  };
}

function first(tools: Tool[], query: string): string | undefined {
  return new ToolSearch({ tools, definitions: {} }).search(query, 1)[0]?.tool.name;
}

describe("tool search on specs without summaries", () => {
  it("reads the description's first sentence as the summary, its HTML as text", () => {
    const tools = [
      tool({
        name: "opA",
        description:
          "<p>Returns the payments.</p> <p>A payment that was refunded says so; a refund of a payment, or a refund of part of it, is listed with it.</p>",
      }),
      tool({
        name: "opB",
        description: "<p>Refund a payment.</p>",
        method: "POST",
        path: "/x/{id}/y",
      }),
    ];
    expect(first(tools, "refund a payment")).toBe("opB");
  });

  it("takes a POST to one item for an update", () => {
    const tools = [
      tool({ name: "opA", description: "Customers.", method: "POST", path: "/customers" }),
      tool({ name: "opB", description: "Customers.", method: "POST", path: "/customers/{id}" }),
    ];
    expect(first(tools, "change a customer")).toBe("opB");
  });

  it("puts a tool that says it is deprecated after the one that replaces it", () => {
    const tools = [
      tool({ name: "watchPods", description: "Pods of a node. Deprecated: use listPods with watch=true." }),
      tool({ name: "listPods", description: "Pods of a node. Use watch=true to follow changes." }),
    ];
    expect(first(tools, "pods of a node")).toBe("listPods");
  });

  it("prefers a tool whose method does what the request's verb asks", () => {
    const tools = [
      tool({ name: "opA", description: "Worker process.", path: "/processes/{id}" }),
      tool({ name: "opB", description: "Worker process.", method: "DELETE", path: "/processes/{id}" }),
    ];
    expect(first(tools, "kill the worker process")).toBe("opB");
    expect(first(tools, "which worker process is it")).toBe("opA");
  });

  it("ignores ids, e-mail addresses, host names and key=value in the request", () => {
    const tools = [
      tool({ name: "opA", description: "Refund a charge.", method: "POST", path: "/charges/{id}/refunds" }),
      tool({ name: "opB", description: "Expire a test refund.", method: "POST", path: "/test/refunds/{id}/expire" }),
    ];
    expect(first(tools, "refund cs_test_123")).toBe("opA");
    expect(first(tools, "refund test.example.com")).toBe("opA");
    expect(first(tools, "refund test@example.com")).toBe("opA");
    expect(first(tools, "refund mode=test")).toBe("opA");
  });
});
