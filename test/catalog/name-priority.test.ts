// A valid operationId keeps its name: no name sanitized or derived for an earlier operation takes it first.

import { describe, expect, it } from "vitest";
import { loadFixture } from "../support/fixtures.js";

const byPath = (tools: Array<{ name: string; operation: { path: string } }>): Record<string, string> =>
  Object.fromEntries(tools.map((tool) => [tool.operation.path, tool.name]));

describe("name priority", () => {
  it("gives a valid operationId its own name before a sanitized or derived one is placed, the same on every run", async () => {
    const names = byPath((await loadFixture("openapi30/name-priority.openapi.yaml")).tools);
    expect(names["/b"]).toBe("list_items");
    expect(names["/a"]).toMatch(/^list_items_[0-9a-f]{4}$/);
    expect(names["/d"]).toBe("get_c");
    expect(names["/c"]).toMatch(/^get_c_[0-9a-f]{4}$/);
    expect(byPath((await loadFixture("openapi30/name-priority.openapi.yaml")).tools)).toEqual(names);
  });

  it("holds within a manifest's namespace too", async () => {
    const names = byPath((await loadFixture("manifest/name-priority.manifest.yaml")).tools);
    expect(names["/b"]).toBe("ns__list_items");
    expect(names["/a"]).toMatch(/^ns__list_items_[0-9a-f]{4}$/);
    expect(names["/d"]).toBe("ns__get_c");
  });
});
