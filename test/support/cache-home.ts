// Every test file gets a catalog cache of its own (XDG_CACHE_HOME, inherited by the CLIs the tests start): tests
// never read or fill the cache of the person running them, and no test finds what another left. Generated projects
// go in a scratch directory of the file's own (OPENAPI_MCP_TEST_SCRATCH), removed with the cache when the file ends,
// so runs do not leave hundreds of projects in the system's temporary directory.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const home = mkdtempSync(join(tmpdir(), "openapi-mcp-test-cache-"));
const scratch = mkdtempSync(join(tmpdir(), "openapi-mcp-test-scratch-"));
process.env.XDG_CACHE_HOME = home;
process.env.OPENAPI_MCP_TEST_SCRATCH = scratch;
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});
