#!/usr/bin/env node
// The `openapi-mcp` command (package.json `bin`): the program is in cli/.

import { main } from "./cli/main.js";

const code = await main(process.argv);
// Exit once stdout has drained: output to a pipe arrives in full, and idle keep-alive connections to an
// upstream do not hold the process open.
process.stdout.write("", () => process.exit(code));
