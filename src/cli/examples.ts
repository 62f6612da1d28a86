// The examples `--help` shows under each command: first what a new user types with the bundled examples (it works
// as printed from a clone of this repository, after `npm run build`), then the common forms for one's own API.

const EXAMPLES: Record<string, string[]> = {
  "": [
    "openapi-mcp inspect examples/petstore.openapi.yaml",
    "API_KEY_API_KEY=demo-key openapi-mcp serve examples/petstore.openapi.yaml",
    "openapi-mcp generate examples/petstore.openapi.yaml --out petstore-mcp",
    "openapi-mcp <command> --help          options and examples of one command",
  ],
  inspect: [
    "openapi-mcp inspect examples/petstore.openapi.yaml",
    "openapi-mcp inspect https://example.com/openapi.json --include tag:pets --json",
    "openapi-mcp inspect examples/shop.manifest.yaml           several sources under namespaces",
    "openapi-mcp inspect cars.yaml widgets.yaml                the variable names `serve cars.yaml widgets.yaml` reads",
  ],
  validate: [
    "openapi-mcp validate examples/widgets.actions.yaml",
    "openapi-mcp validate --strict my-api.yaml                in CI: warnings fail too",
  ],
  serve: [
    "API_KEY_API_KEY=your-key openapi-mcp serve examples/petstore.openapi.yaml          stdio, for Claude Desktop and the like",
    "openapi-mcp serve my-api.yaml --transport http --port 8080 --auth-token-env MCP_TOKENS",
    "openapi-mcp serve my-api.yaml --include tag:billing --exclude method:delete --policy write=approve",
    "openapi-mcp serve examples/shop.manifest.yaml --config settings.yaml --audit-log audit.jsonl",
    "GITHUB_TOKEN=… openapi-mcp serve api.github.com.json --auth bearer:GITHUB_TOKEN   a token for a spec that declares none",
  ],
  call: [
    "openapi-mcp call examples/petstore.openapi.yaml listPets --args '{\"limit\": 2}' --dry-run",
    "API_KEY_API_KEY=demo-key openapi-mcp call examples/petstore.openapi.yaml getPet --args '{\"petId\": 1}' --base-url http://127.0.0.1:4010/v1",
  ],
  generate: [
    "openapi-mcp generate examples/petstore.openapi.yaml --out petstore-mcp && cd petstore-mcp && npm install && npm test",
    "openapi-mcp generate my-api.yaml --out my-mcp --include tag:public      only part of the API",
    "openapi-mcp generate my-api.yaml --out my-mcp                           again, after the API changed: src/custom/ is kept",
  ],
};

/** The help text after a command's options ("" for the program itself). */
export function examplesHelp(command: string): string {
  const lines = EXAMPLES[command];
  return lines ? `\nExamples:\n${lines.map((line) => `  $ ${line}`).join("\n")}\n` : "";
}
