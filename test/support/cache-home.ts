// Every test file gets a catalog cache of its own (XDG_CACHE_HOME, inherited by the CLIs the tests start): tests
// never read or fill the cache of the person running them, and no test finds what another left.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const home = mkdtempSync(join(tmpdir(), "openapi-mcp-test-cache-"));
process.env.XDG_CACHE_HOME = home;
afterAll(() => rmSync(home, { recursive: true, force: true }));
