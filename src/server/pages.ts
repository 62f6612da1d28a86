// tools/list in pages. Microsoft Graph's 11,422 tools make a 100 MB listing; the SDK client's stdio transport
// closes the connection on any message over 10 MiB (its ReadBuffer limit), and no client should have to hold one
// message that size. Past MAX_PAGE_BYTES of entries the listing is cut into pages, each answer naming the next
// with `nextCursor`, as MCP's pagination has clients follow.

import { createHash } from "node:crypto";
import type { ServedTool } from "../runtime/types.js";

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
const paged = new WeakMap<readonly ServedTool[], Paged>();

/**
 * The page of `tools` that `cursor` names (the first without one), or undefined when the cursor is not one this
 * listing gave out. A cursor holds the page's first index and a hash of the listing's names: opaque to clients,
 * the same for the same listing on every run, and refused by a server listing other tools.
 */
export function toolPage({ tools, cursor, maxBytes = MAX_PAGE_BYTES }: { tools: readonly ServedTool[]; cursor?: string; maxBytes?: number }): ToolPage | undefined {
  let state = paged.get(tools);
  if (!state) {
    state = { fingerprint: fingerprintOf(tools), ends: new Map() };
    paged.set(tools, state);
  }
  const start = cursor === undefined ? 0 : startOf(cursor, state.fingerprint);
  if (start === undefined || start >= tools.length) return start === 0 ? { tools: [] } : undefined;
  let end = state.ends.get(start);
  if (end === undefined) {
    end = start;
    // `[`, `]` and a comma between entries.
    let bytes = 2;
    while (end < tools.length) {
      const size = Buffer.byteLength(JSON.stringify(tools[end])) + (end > start ? 1 : 0);
      if (end > start && bytes + size > maxBytes) break;
      bytes += size;
      end++;
    }
    state.ends.set(start, end);
  }
  const page: ToolPage = { tools: tools.slice(start, end) };
  if (end < tools.length) page.nextCursor = Buffer.from(`${end}.${state.fingerprint}`).toString("base64url");
  return page;
}

function startOf(cursor: string, fingerprint: string): number | undefined {
  const match = /^([1-9]\d{0,8})\.([0-9a-f]{12})$/.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  return match && match[2] === fingerprint ? Number(match[1]) : undefined;
}

function fingerprintOf(tools: readonly ServedTool[]): string {
  const hash = createHash("sha256");
  for (const tool of tools) hash.update(`${tool.name}\n`);
  return hash.digest("hex").slice(0, 12);
}
