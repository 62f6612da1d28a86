// One catalog cache entry as a file, and reading one back without trusting it. Lines: a first line naming the
// format with a SHA-256 digest of the rest; a header (the key, what the load read besides its sources); the
// catalog without its schemas and descriptions (each in its place, empty); those schemas and descriptions; then,
// when kept, each tool's tools/list entry, one a line (JSON.stringify writes no line breaks), so a server can send
// them as they are. Schemas and descriptions are half the catalog's JSON and not needed to answer a listing from
// the entry: `complete()` reads them when they are (serve: once the first answers are out). An entry that is cut,
// altered, of another format, for another key or not of a catalog's shape is refused with the reason; the caller
// builds the catalog again.

import type { Catalog, JsonSchema } from "../catalog/types.js";
import { catalogProblem, schemasProblem } from "./catalog-shape.js";
import { digestOf } from "./recorded-reads.js";

const MAGIC = "openapi-mcp catalog cache 2";
const NEWLINE = 0x0a;

export interface EntryHeader {
  key: string;
  /** Files the load read besides its sources, each with the digest of its bytes. */
  reads: Array<{ location: string; digest: string }>;
  /** Environment variables the load read (a `${VAR}` in a base URL): the digest of each value, null when unset. */
  env: Array<{ name: string; digest: string | null }>;
}

export interface Entry {
  header: EntryHeader;
  /** Without its schemas and descriptions until `complete()` has run. */
  catalog: Catalog;
  /** Puts the schemas and descriptions in their places (once), or says why they cannot be used. */
  complete(): string | undefined;
  /** Each tool's tools/list entry as JSON, in the catalog's order, when the entry holds them. */
  listing?: Buffer[];
}

/** The entry's first line, naming the format and the digest of the rest (same length for every digest). */
export function entryHead(digest: string): string {
  return `${MAGIC} ${digest}\n`;
}

/**
 * The rest of the entry, in pieces to be written one after another as they come: neither the catalog's JSON nor the
 * entry is ever one string (Microsoft Graph's catalog is 76 MB of JSON).
 */
export function* entryBody({
  header,
  catalog,
  listing = [],
}: {
  header: EntryHeader;
  catalog: Catalog;
  listing?: readonly string[];
}): Generator<string> {
  yield `${JSON.stringify({ ...header, listing: listing.length > 0 })}\n`;
  // Each in its place, so the catalog completed has its keys in the order the builder gave them.
  const light = {
    ...catalog,
    definitions: {},
    tools: catalog.tools.map((tool) => ({
      ...tool,
      description: "",
      inputSchema: { type: "object" },
      ...(tool.outputSchema ? { outputSchema: { type: "object" } } : {}),
    })),
  };
  yield* jsonPieces(light);
  yield "\n";
  yield* jsonPieces({
    definitions: catalog.definitions,
    tools: catalog.tools.map((tool) => [tool.description, tool.inputSchema, tool.outputSchema ?? null]),
  });
  for (const line of listing) yield `\n${line}`;
}

/** JSON.stringify(value) in pieces: the members of its arrays and objects one by one, a level down. */
function* jsonPieces(value: object): Generator<string> {
  yield "{";
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined) continue;
    yield `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    if (Array.isArray(member)) {
      yield "[";
      for (const [i, item] of member.entries()) yield `${i > 0 ? "," : ""}${JSON.stringify(item) ?? "null"}`;
      yield "]";
    } else if (member !== null && typeof member === "object") {
      yield "{";
      let firstEntry = true;
      for (const [name, item] of Object.entries(member)) {
        if (item === undefined) continue;
        yield `${firstEntry ? "" : ","}${JSON.stringify(name)}:${JSON.stringify(item)}`;
        firstEntry = false;
      }
      yield "}";
    } else {
      yield JSON.stringify(member);
    }
  }
  yield "}";
}

/** The entry in `bytes`, or why it cannot be used. */
export function decodeEntry({ bytes, key }: { bytes: Buffer; key: string }): Entry | { problem: string } {
  const lines = splitLines(bytes);
  const [first, headerLine, catalogLine, schemasLine, ...listing] = lines;
  if (!first || !headerLine || !catalogLine || !schemasLine) return { problem: "cut short" };
  const magic = first.toString("latin1");
  if (!magic.startsWith(`${MAGIC} `)) return { problem: "not an entry of this format" };
  if (magic.slice(MAGIC.length + 1) !== digestOf(bytes.subarray(first.length + 1)))
    return { problem: "its digest does not match: cut or altered" };
  const header = parse(headerLine);
  if (!isHeader(header)) return { problem: "its header is not valid" };
  if (header.key !== key) return { problem: "it is for another key" };
  const catalog = parse(catalogLine);
  const wrong = catalogProblem(catalog);
  if (wrong) return { problem: `its catalog is not valid: ${wrong}` };
  const { tools } = catalog as Catalog;
  const entry: Entry = {
    header: { key, reads: header.reads, env: header.env },
    catalog: catalog as Catalog,
    complete: completion({ catalog: catalog as Catalog, line: schemasLine }),
  };
  if (!header.listing) return listing.length === 0 ? entry : { problem: "lines after the catalog" };
  if (listing.length !== tools.length) return { problem: "its listing does not match its tools" };
  // Each entry names its tool first (Listing.entry's order); the digest vouches for the rest.
  for (const [i, line] of listing.entries()) {
    if (
      !line
        .subarray(0, 200)
        .toString("utf8")
        .startsWith(`{"name":${JSON.stringify(tools[i]!.name)},`)
    )
      return { problem: "its listing does not match its tools" };
  }
  return { ...entry, listing };
}

/** `complete()` of an entry: the schemas line parsed, checked and put in the catalog's places, once. */
function completion({ catalog, line }: { catalog: Catalog; line: Buffer }): () => string | undefined {
  let outcome: { problem?: string } | undefined;
  return () => {
    outcome ??= (() => {
      const value = parse(line);
      const problem = schemasProblem({ value, outputs: catalog.tools.map((tool) => tool.outputSchema !== undefined) });
      if (problem) return { problem: `its schemas are not valid: ${problem}` };
      const { definitions, tools } = value as {
        definitions: Record<string, unknown>;
        tools: Array<[string, JsonSchema, JsonSchema | null]>;
      };
      // Defined, not assigned: a definition named __proto__ stays a definition.
      for (const [name, definition] of Object.entries(definitions)) {
        Object.defineProperty(catalog.definitions, name, {
          value: definition,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      for (const [i, tool] of catalog.tools.entries()) {
        const [description, input, output] = tools[i]!;
        Object.assign(tool, { description, inputSchema: input, ...(output ? { outputSchema: output } : {}) });
      }
      return {};
    })();
    return outcome.problem;
  };
}

function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let end = bytes.indexOf(NEWLINE); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  lines.push(bytes.subarray(start));
  return lines;
}

function parse(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString("utf8"));
  } catch {
    return undefined;
  }
}

const HEX = /^[0-9a-f]{64}$/;
function isHeader(value: unknown): value is EntryHeader & { listing: boolean } {
  const v = value as Partial<EntryHeader> & { listing?: unknown };
  return (
    typeof value === "object" &&
    value !== null &&
    typeof v.key === "string" &&
    typeof v.listing === "boolean" &&
    Array.isArray(v.reads) &&
    v.reads.every((r) => typeof r?.location === "string" && typeof r.digest === "string" && HEX.test(r.digest)) &&
    Array.isArray(v.env) &&
    v.env.every(
      (e) => typeof e?.name === "string" && (e.digest === null || (typeof e.digest === "string" && HEX.test(e.digest))),
    )
  );
}
