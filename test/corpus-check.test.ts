// The corpus checker must be able to fail: a catalog with each kind of problem a client would reject.

import { describe, expect, it } from "vitest";
import { checkCatalog } from "../bench/corpus-check.mjs";
import type { Catalog, Tool } from "../src/catalog/types.js";
import { loadCatalog } from "../src/load/index.js";

describe("corpus checker", () => {
  it("finds nothing wrong in a good catalog", async () => {
    const catalog = await loadCatalog("examples/petstore.openapi.yaml");
    expect(checkCatalog(catalog).problems).toEqual({ schema: [], name: [], duplicate: [] });
  });

  it("reports bad names, duplicates, schemas Ajv cannot compile and entries the SDK rejects", async () => {
    const good = await loadCatalog("examples/petstore.openapi.yaml");
    const base = good.tools[0]!;
    const tool = (patch: Partial<Tool>): Tool => ({ ...base, ...patch });
    const catalog: Catalog = {
      ...good,
      definitions: { ...good.definitions, Broken: { type: "nope" } },
      tools: [
        tool({ name: "bad name" }),
        tool({ name: "twice" }),
        tool({ name: "twice" }),
        tool({
          name: "refers_to_broken",
          inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/Broken" } } },
        }),
        tool({ name: "boolean_property", inputSchema: { type: "object", properties: { a: true } } as never }),
      ],
    };
    const { problems } = checkCatalog(catalog);
    expect(problems.name).toEqual(["bad name"]);
    expect(problems.duplicate).toEqual(["twice"]);
    expect(problems.schema).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^definition Broken: Ajv2020: /),
        expect.stringMatching(/^refers_to_broken: input schema: Ajv2020: /),
        expect.stringMatching(/^boolean_property: SDK ToolSchema: /),
      ]),
    );
  });
});
