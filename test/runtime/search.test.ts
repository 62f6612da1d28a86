// Tool search (dynamic mode's search_tools) on small catalogs: what a user types meets how an API names things, the
// order is stable, and values in a request (owner/name, numbers) do not steer it.

import { beforeAll, describe, expect, it } from "vitest";
import type { Catalog, Tool } from "../../src/catalog/types.js";
import { loadCatalog } from "../../src/load/index.js";
import { ToolSearch } from "../../src/runtime/modes/search/search.js";

let petstore: Catalog;
beforeAll(async () => {
  petstore = await loadCatalog("examples/petstore.openapi.yaml");
});

/** A tool like the petstore's first, with its name, summary, method and path replaced. */
function tool({
  name,
  title,
  method = "GET",
  path = "/things",
}: {
  name: string;
  title: string;
  method?: Tool["operation"]["method"];
  path?: string;
}): Tool {
  const base = petstore.tools[0]!;
  const effect = method === "GET" ? "read" : method === "DELETE" ? "destructive" : "write";
  return {
    ...base,
    name,
    title,
    description: title,
    effect,
    origin: { ...base.origin, tags: [] },
    operation: { ...base.operation, method, path },
  };
}

function names(tools: Tool[], query: string, limit = 5): string[] {
  return new ToolSearch({ tools, definitions: {} }).search(query, limit).map((hit) => hit.tool.name);
}

describe("tool search", () => {
  it("finds the petstore's tools by what a user would say", () => {
    const search = (query: string) => new ToolSearch(petstore).search(query, 3)[0]?.tool.name;
    expect(search("show me every pet")).toBe("listPets");
    expect(search("get rid of a pet")).toBe("deletePet");
    expect(search("add a new dog to the store")).toBe("createPet");
    expect(search("buy a pet")).toBe("placeOrder");
  });

  it("meets names in camelCase, snake_case and kebab-case, plurals and short forms", () => {
    const tools = [
      tool({ name: "listForRepo", title: "" }),
      tool({ name: "delete_pull_request", title: "", method: "DELETE" }),
      tool({ name: "create-organization-invitation", title: "", method: "POST" }),
    ];
    expect(names(tools, "repositories", 1)).toEqual(["listForRepo"]);
    expect(names(tools, "remove a PR", 1)).toEqual(["delete_pull_request"]);
    expect(names(tools, "invite someone to my org", 1)).toEqual(["create-organization-invitation"]);
  });

  it("ranks the tool whose action fits first, and keeps the catalog's order among equals", () => {
    const tools = [
      tool({ name: "getWidget", title: "Get a widget", path: "/widgets/{id}" }),
      tool({ name: "deleteWidget", title: "Delete a widget", method: "DELETE", path: "/widgets/{id}" }),
      tool({ name: "updateWidget", title: "Update a widget", method: "PATCH", path: "/widgets/{id}" }),
    ];
    expect(names(tools, "remove the widget")[0]).toBe("deleteWidget");
    expect(names(tools, "rename a widget")[0]).toBe("updateWidget");
    // A question asks to read.
    expect(names(tools, "what is widget 7?")[0]).toBe("getWidget");
    expect(names(tools, "widget")).toEqual(["getWidget", "deleteWidget", "updateWidget"]);
    expect(names([...tools].reverse(), "widget")).toEqual(["updateWidget", "deleteWidget", "getWidget"]);
  });

  it("is not steered by the values in a request", () => {
    const tools = [
      tool({ name: "getOctocat", title: "Get the octocat" }),
      tool({ name: "createIssue", title: "Create an issue", method: "POST" }),
    ];
    expect(names(tools, "open a new issue in octocat/hello-world")[0]).toBe("createIssue");
    expect(names(tools, "open a new issue in 'octocat'")[0]).toBe("createIssue");
  });

  it("puts a tool first when the query is its name, and finds nothing for words no tool has", () => {
    const tools = [
      tool({ name: "list_things", title: "List things" }),
      tool({ name: "things_list", title: "List things" }),
    ];
    expect(names(tools, "things_list")[0]).toBe("things_list");
    expect(names(tools, "quantum entanglement")).toEqual([]);
    expect(names(tools, "")).toEqual([]);
    // Words that are also names of Object's own properties are words like any other.
    const odd = [tool({ name: "constructor", title: "The constructor of __proto__ and toString" })];
    expect(names(odd, "constructor __proto__ hasOwnProperty toString")).toEqual(["constructor"]);
  });
});
