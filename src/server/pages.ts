// tools/list in pages. Microsoft Graph's 11,422 tools make a 100 MB listing; the SDK client's stdio transport
// closes the connection on any message over 10 MiB (its ReadBuffer limit), and no client should have to hold one
// message that size. Past MAX_PAGE_BYTES of entries the listing is cut into pages, each answer naming the next
// with `nextCursor`, as MCP's pagination has clients follow.

import { createHash } from "node:crypto";
import type { ListingJson, ServedTool } from "../runtime/types.js";

/**
 * 4 MiB of entries a page: well under the SDK client's 10 MiB stdio limit, and the size of the largest request body
 * the SDK's HTTP transport accepts, so nothing this server sends is bigger than what it would take. GitHub's whole
 * listing (3.4 MB, 1,223 tools) still comes in one page, so clients that never ask for a second page lose nothing
 * there. An entry bigger than the bound alone has a page of its own.
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

export interface ToolPage {
  tools: ServedTool[];
  nextCursor?: string;
}

/** Page boundaries of one listing, found as pages are asked for and kept: start index → end index. */
interface Paged {
  fingerprint: string;
  ends: Map<number, number>;
}

// Per listing, not per server: over HTTP each session has a server of its own, all serving the same listing.
const paged = new WeakMap<object, Paged>();

/**
 * The page of `tools` that `cursor` names (the first without one), or undefined when the cursor is not one this
 * listing gave out. A cursor holds the page's first index and a hash of the listing's names: opaque to clients,
 * the same for the same listing on every run, and refused by a server listing other tools.
 */
export function toolPage({
  tools,
  cursor,
  maxBytes = MAX_PAGE_BYTES,
}: {
  tools: readonly ServedTool[];
  cursor?: string;
  maxBytes?: number;
}): ToolPage | undefined {
  const range = pageRange({
    listing: tools,
    names: () => tools.map((t) => t.name),
    sizes: (i) => Buffer.byteLength(JSON.stringify(tools[i])),
    count: tools.length,
    cursor,
    maxBytes,
  });
  if (!range) return undefined;
  const page: ToolPage = { tools: tools.slice(range.start, range.end) };
  if (range.nextCursor) page.nextCursor = range.nextCursor;
  return page;
}

/** A page of a listing serialized once, as `jsonToolPage` gives it. */
export interface JsonToolPage {
  tools: ListedTools;
  nextCursor?: string;
}

/**
 * The entries of a page serialized once: `text` is their JSON array, sent as it is over stdio (`rawJson`), and
 * `toJSON` gives the entries (parsed then) to a transport that serializes the result itself (HTTP). Not an array on
 * purpose: both eras' SDK encoders look into a `tools` array entry by entry (to drop `execution`, to wrap output
 * schemas whose root is not an object; our entries have neither), which would parse every entry of every listing.
 */
export class ListedTools {
  readonly text: string;
  private readonly read: () => readonly ServedTool[];

  constructor({ text, read }: { text: string; read: () => readonly ServedTool[] }) {
    this.text = text;
    this.read = read;
  }

  toJSON(): readonly ServedTool[] {
    return this.read();
  }
}

/** The same page of a listing serialized once (ListingJson), whatever the SDK adds to it in either era. */
export function jsonToolPage({
  listing,
  tools,
  cursor,
  maxBytes = MAX_PAGE_BYTES,
}: {
  listing: ListingJson;
  tools: () => readonly ServedTool[];
  cursor?: string;
  maxBytes?: number;
}): JsonToolPage | undefined {
  const { names, texts } = listing;
  const range = pageRange({
    listing,
    names: () => names,
    sizes: (i) => Buffer.byteLength(texts[i]!),
    count: texts.length,
    cursor,
    maxBytes,
  });
  if (!range) return undefined;
  const { start, end, nextCursor } = range;
  const text = `[${texts.slice(start, end).join(",")}]`;
  const page: JsonToolPage = { tools: new ListedTools({ text, read: () => tools().slice(start, end) }) };
  if (nextCursor) page.nextCursor = nextCursor;
  return page;
}

/**
 * What `JSON.stringify(result)` gives for a result holding a page's `ListedTools` (as the SDK makes it: our page,
 * then the fields it adds), with the entries' JSON as it was written; undefined for any other result. Fields are
 * taken in the order JSON.stringify takes them, each but the entries serialized as it would.
 */
export function rawJson(result: unknown): string | undefined {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return undefined;
  const entries = Object.entries(result);
  if (!entries.some(([, value]) => value instanceof ListedTools)) return undefined;
  // Concatenated, not joined: `join` copies the megabytes of entries into a new string, `+` only links them.
  let json = "";
  for (const [key, value] of entries) {
    const text = value instanceof ListedTools ? value.text : (JSON.stringify(value) as string | undefined);
    if (text !== undefined) json += `${json ? "," : ""}${JSON.stringify(key)}:${text}`;
  }
  return `{${json}}`;
}

function pageRange({
  listing,
  names,
  sizes,
  count,
  cursor,
  maxBytes,
}: {
  listing: object;
  names: () => readonly string[];
  sizes: (index: number) => number;
  count: number;
  cursor: string | undefined;
  maxBytes: number;
}): { start: number; end: number; nextCursor?: string } | undefined {
  let state = paged.get(listing);
  if (!state) {
    state = { fingerprint: fingerprintOf(names()), ends: new Map() };
    paged.set(listing, state);
  }
  const start = cursor === undefined ? 0 : startOf(cursor, state.fingerprint);
  if (start === undefined || start >= count) return start === 0 ? { start: 0, end: 0 } : undefined;
  let end = state.ends.get(start);
  if (end === undefined) {
    end = start;
    // `[`, `]` and a comma between entries.
    let bytes = 2;
    while (end < count) {
      const size = sizes(end) + (end > start ? 1 : 0);
      if (end > start && bytes + size > maxBytes) break;
      bytes += size;
      end++;
    }
    state.ends.set(start, end);
  }
  return end < count
    ? { start, end, nextCursor: Buffer.from(`${end}.${state.fingerprint}`).toString("base64url") }
    : { start, end };
}

function startOf(cursor: string, fingerprint: string): number | undefined {
  const match = /^([1-9]\d{0,8})\.([0-9a-f]{12})$/.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  return match && match[2] === fingerprint ? Number(match[1]) : undefined;
}

function fingerprintOf(names: readonly string[]): string {
  const hash = createHash("sha256");
  for (const name of names) hash.update(`${name}\n`);
  return hash.digest("hex").slice(0, 12);
}
