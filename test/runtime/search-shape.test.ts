// Tool search against REST structure, true of any API: one item or many, the container a request names, names
// written as one word or two, pre-release versions, operations repeated in another version, verbs that undo or
// command. Tools here have no summaries and opaque names, as in specs unlike GitHub's, so only structure decides.

import { beforeAll, describe, expect, it } from "vitest";
import type { Catalog, Tool } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { ToolSearch } from "../../src/runtime/modes/search/search.js";

let base: Tool;
beforeAll(async () => {
  const petstore: Catalog = await loadCatalog("examples/petstore.openapi.yaml");
  base = petstore.tools[0]!;
});

function tool({
  name,
  description = "",
  method = "GET",
  path,
  args = [],
  tags = [],
}: {
  name: string;
  description?: string;
  method?: Tool["operation"]["method"];
  path: string;
  args?: string[];
  tags?: string[];
}): Tool {
  const properties = Object.fromEntries(args.map((arg) => [arg, { type: "string" }]));
  return {
    ...base,
    name,
    title: name,
    description,
    inputSchema: { type: "object", properties },
    origin: { ...base.origin, tags },
    operation: { ...base.operation, method, path },
  };
}

function ranked(tools: Tool[], query: string, limit = 5): string[] {
  return new ToolSearch({ tools, definitions: {} }).search(query, limit).map((hit) => hit.tool.name);
}

describe("tool search against the shape of REST paths", () => {
  it("takes one item for a request that names one, the collection for one that asks for many", () => {
    const tools = [
      tool({ name: "op1", description: "Pods.", path: "/pods/{name}", args: ["name"] }),
      tool({ name: "op2", description: "Pods.", path: "/pods" }),
    ];
    expect(ranked(tools, "show the pod web-1")[0]).toBe("op1");
    expect(ranked(tools, "show all pods")[0]).toBe("op2");
    expect(ranked(tools, "show every pod")[0]).toBe("op2");
  });

  it("takes the tool scoped by the container a request names", () => {
    // Both are about namespaces (one by its tag), but only the second takes one.
    const tools = [
      tool({ name: "op1", description: "Pods.", path: "/pods", tags: ["namespaces"] }),
      tool({ name: "op2", description: "Pods.", path: "/ns/{ns}/pods", args: ["namespace"] }),
    ];
    expect(ranked(tools, "list pods in namespace shop")[0]).toBe("op2");
  });

  it("meets names written as one word in one place and as two in another", () => {
    const tools = [
      tool({ name: "op1", description: "Replicas.", path: "/replicas/{name}" }),
      tool({ name: "readReplicaSet", path: "/apps/{name}" }),
    ];
    expect(ranked(tools, "show the replicaset web")[0]).toBe("readReplicaSet");
  });

  it("prefers the stable version", () => {
    const tools = [
      tool({ name: "beta", description: "Jobs.", path: "/v1beta1/jobs" }),
      tool({ name: "stable", description: "Jobs.", path: "/v1/jobs" }),
    ];
    expect(ranked(tools, "list jobs")[0]).toBe("stable");
  });

  it("shows five different operations before another version of one", () => {
    const many = [
      tool({ name: "v1", description: "Jobs, jobs.", path: "/v1/jobs" }),
      tool({ name: "v2", description: "Jobs, jobs.", path: "/v2/jobs" }),
      ...["a", "b", "c", "d", "e"].map((n) => tool({ name: n, description: "Jobs.", path: `/v1/${n}/jobs/x` })),
    ];
    const five = ranked(many, "list jobs");
    expect(five).toHaveLength(5);
    expect(five.filter((name) => name === "v1" || name === "v2")).toHaveLength(1);
  });

  it("reads 'unfollow' as follow undone", () => {
    const follow = [
      tool({ name: "op1", method: "PUT", path: "/user/following/{username}" }),
      tool({ name: "op2", method: "DELETE", path: "/user/following/{username}" }),
    ];
    expect(ranked(follow, "unfollow bob")[0]).toBe("op2");
  });

  it("reads a request opening with a word the API names nothing with as a command", () => {
    const nodes = [
      tool({ name: "op1", description: "A node.", path: "/nodes/{name}" }),
      tool({ name: "op2", description: "A node.", method: "PATCH", path: "/nodes/{name}" }),
    ];
    expect(ranked(nodes, "cordon node 3")[0]).toBe("op2");
    expect(ranked(nodes, "node 3")[0]).toBe("op1");
  });

  it("reads everyday commands by their verb", () => {
    const scale = [
      tool({ name: "op1", description: "Scale of a deployment.", path: "/deployments/{name}/scale" }),
      tool({ name: "op2", description: "Scale of a deployment.", method: "PATCH", path: "/deployments/{name}/scale" }),
    ];
    expect(ranked(scale, "scale the web deployment")[0]).toBe("op2");
  });

  it("tells a request that creates from one that changes what is there", () => {
    const patch = tool({ name: "patch", description: "Widgets.", method: "PATCH", path: "/widgets/{id}" });
    const post = tool({ name: "post", description: "Widgets.", method: "POST", path: "/x/{x}/widgets" });
    expect(ranked([patch, post], "deploy a widget")[0]).toBe("post");
    const nested = tool({ name: "nested", description: "Widgets.", method: "PATCH", path: "/x/{x}/widgets/{id}" });
    const top = tool({ name: "top", description: "Widgets.", method: "POST", path: "/widgets" });
    expect(ranked([top, nested], "scale the widget w-1")[0]).toBe("nested");
  });
});
