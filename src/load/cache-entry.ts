// One catalog cache entry as a file, and reading one back without trusting it. Lines: a first line naming the
// format with a SHA-256 digest of the rest; a header (the key, what the load read besides its sources); the
// catalog; then, when kept, each tool's tools/list entry, one a line (JSON.stringify writes no line breaks), so a
// server can send them as they are. An entry that is cut, altered, of another format, for another key or not of
// a catalog's shape is refused with the reason; the caller builds the catalog again.

import { createHash } from "node:crypto";
import type { Catalog } from "../catalog/types.js";
import { catalogProblem } from "./catalog-shape.js";
import { digestOf } from "./reads.js";

const MAGIC = "openapi-mcp catalog cache 1";
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
  catalog: Catalog;
  /** Each tool's tools/list entry as JSON, in the catalog's order, when the entry holds them. */
  listing?: Buffer[];
}

/**
 * The entry's bytes, in pieces to be written one after another: the catalog's JSON and the listing are not joined
 * into one more copy of themselves (GitHub's entry is 8 MB), and the digest is taken piece by piece.
 */
export function encodeEntry({ header, catalog, listing = [] }: { header: EntryHeader; catalog: Catalog; listing?: readonly string[] }): Buffer[] {
  const body = [JSON.stringify({ ...header, listing: listing.length > 0 }), JSON.stringify(catalog), ...listing].map((line, i) => Buffer.from(i === 0 ? line : `\n${line}`));
  const hash = createHash("sha256");
  for (const piece of body) hash.update(piece);
  return [Buffer.from(`${MAGIC} ${hash.digest("hex")}\n`), ...body];
}

/** The entry in `bytes`, or why it cannot be used. */
export function decodeEntry({ bytes, key }: { bytes: Buffer; key: string }): Entry | { problem: string } {
  const lines = splitLines(bytes);
  const [first, headerLine, catalogLine, ...listing] = lines;
  if (!first || !headerLine || !catalogLine) return { problem: "cut short" };
  const magic = first.toString("latin1");
  if (!magic.startsWith(`${MAGIC} `)) return { problem: "not an entry of this format" };
  if (magic.slice(MAGIC.length + 1) !== digestOf(bytes.subarray(first.length + 1))) return { problem: "its digest does not match: cut or altered" };
  const header = parse(headerLine);
  if (!isHeader(header)) return { problem: "its header is not valid" };
  if (header.key !== key) return { problem: "it is for another key" };
  const catalog = parse(catalogLine);
  const wrong = catalogProblem(catalog);
  if (wrong) return { problem: `its catalog is not valid: ${wrong}` };
  const { tools } = catalog as Catalog;
  const entry: Entry = { header: { key, reads: header.reads, env: header.env }, catalog: catalog as Catalog };
  if (!header.listing) return listing.length === 0 ? entry : { problem: "lines after the catalog" };
  if (listing.length !== tools.length) return { problem: "its listing does not match its tools" };
  // Each entry names its tool first (Listing.entry's order); the digest vouches for the rest.
  for (const [i, line] of listing.entries()) {
    if (!line.subarray(0, 200).toString("utf8").startsWith(`{"name":${JSON.stringify(tools[i]!.name)},`)) return { problem: "its listing does not match its tools" };
  }
  return { ...entry, listing };
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
    v.env.every((e) => typeof e?.name === "string" && (e.digest === null || (typeof e.digest === "string" && HEX.test(e.digest))))
  );
}
