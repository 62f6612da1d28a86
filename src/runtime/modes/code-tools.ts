// Code mode's three tools as tools/list gives them: small (the whole listing under 1,200 bytes, whatever the API's
// size), and saying enough for a model to write its first script without reading anything else.

import type { Tool } from "../../catalog/types.js";
import { MAX_DESCRIBED_TOOLS } from "./code-describe.js";
import { EXECUTE } from "./code-execute.js";
import { searchTool } from "./dynamic.js";
import type { ServedTool } from "../types.js";

export const DESCRIBE_TOOLS = "describe_tools";

export function codeTools(tools: readonly Tool[]): ServedTool[] {
  const object = (properties: Record<string, unknown>, required: string[]) => ({
    type: "object" as const,
    properties,
    required,
  });
  const reading = { readOnlyHint: true, openWorldHint: false };
  return [
    searchTool({ tools, whose: "this API's" }),
    {
      name: DESCRIBE_TOOLS,
      title: "Describe tools",
      description: "TypeScript declarations of tools, as a script calls them: api.<name>(args): Promise<result>.",
      inputSchema: object(
        { names: { type: "array", items: { type: "string" }, minItems: 1, maxItems: MAX_DESCRIBED_TOOLS } },
        ["names"],
      ),
      annotations: reading,
    },
    {
      name: EXECUTE,
      title: "Execute script",
      description:
        "Run JavaScript (an async function body) calling `await api.<name>(args)`; a failed call throws its message. Returns the script's return value, console.log lines and the calls made.",
      inputSchema: object({ code: { type: "string" } }, ["code"]),
      annotations: {
        readOnlyHint: tools.every((tool) => tool.annotations.readOnlyHint),
        destructiveHint: tools.some((tool) => tool.annotations.destructiveHint),
      },
    },
  ];
}
