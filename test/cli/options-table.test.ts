// Every option a generated server takes is taken by `openapi-mcp serve` alike: the same flag and help (default
// included) in both usages, and the same refusal, word for word, of each bad value, from the real CLI (dist/cli.js)
// and a real generated server (dist/index.js). Walks the option table row by row, so an option added to one side
// only, or checked differently, fails here.

import { execFile } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVER_OPTIONS, type ServerOption } from "../../src/server/options.js";
import { runCli } from "../support/cli.js";
import { linkDependencies, REPOSITORY, temporaryProjectDir, typecheck } from "../support/generated.js";

const PETSTORE = join(REPOSITORY, "examples/petstore.openapi.yaml");

/** Values each kind of option must refuse, from the command line. */
function badValues(option: ServerOption): string[] {
  const { kind } = option;
  if (kind === "positive") return ["0", "-1", "1.5", "1e3", "0x10", "ten", " "];
  if (kind === "port") return ["70000", "-1", "80.5", "0x50", "http"];
  if (typeof kind === "object") return ["bogus", kind.choices[0]!.toUpperCase(), ""];
  if (option.name === "policy") return ["read", "write=maybe", "=allow"];
  return [];
}

let project: string;
/** The generated server's name, which starts its messages. */
let name: string;

function runGenerated(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(project, "dist/index.js"), ...args],
      { env: { PATH: process.env.PATH ?? "" }, timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/** Each option's flags and help line, continuation lines joined, the variable it is read from left out. */
function helpLines(usage: string): Map<string, { flags: string; help: string }> {
  const entries = new Map<string, { flags: string; help: string }>();
  let last: { flags: string; help: string } | undefined;
  for (const line of usage.split("\n")) {
    const start = /^ {2}(--[a-z-]+(?: \S+)?)\s{2,}(.*)$/.exec(line);
    if (start) {
      last = { flags: start[1]!, help: start[2]! };
      entries.set(start[1]!.split(" ")[0]!.slice(2), last);
    } else if (last && /^\s{6,}\S/.test(line)) {
      last.help += ` ${line.trim()}`;
    } else {
      last = undefined;
    }
  }
  for (const entry of entries.values())
    entry.help = entry.help.replace(/ \[[A-Z_]+\]$/, "").replace(/ \(env: [A-Z_]+\)$/, "");
  return entries;
}

beforeAll(async () => {
  project = temporaryProjectDir("options-table");
  const generated = await runCli(["generate", PETSTORE, "--out", project]);
  expect(generated.code, generated.stderr).toBe(0);
  linkDependencies(project);
  expect(typecheck(project)).toBe("");
  name = (await runGenerated(["--help"])).stdout.split(": an MCP server")[0]!;
}, 120_000);

describe("serve and a generated server take the same options", () => {
  it("every option: the same flag and help, default included", async () => {
    const cli = helpLines((await runCli(["serve", "--help"])).stdout);
    const server = helpLines((await runGenerated(["--help"])).stdout);
    for (const option of SERVER_OPTIONS) {
      expect(cli.get(option.name), `serve --help: --${option.name}`).toBeDefined();
      expect(cli.get(option.name), `--${option.name}`).toEqual(server.get(option.name));
    }
  });

  // Options of one kind share one parser, so each option tries one of its kind's bad values, in turn: every value is
  // tried by some option of each kind and every option refuses one, at one process pair per option.
  const tried = SERVER_OPTIONS.filter((option) => badValues(option).length > 0);
  const kindOf = (option: ServerOption): string => JSON.stringify(option.kind);
  const refusals = tried.flatMap((option) => {
    const values = badValues(option);
    const sameKind = tried.filter((other) => kindOf(other) === kindOf(option));
    const turn = sameKind.indexOf(option);
    // A kind with fewer options than bad values: its last option also takes the values no other option tried.
    const last = turn === sameKind.length - 1;
    const picked = last && turn < values.length ? values.slice(turn) : [values[turn % values.length]!];
    return picked.map((value) => ({ option: option.name, value }));
  });
  it.concurrent.each(refusals)("--$option '$value': refused by both in the same words", async ({ option, value }) => {
    const args = [`--${option}=${value}`];
    const [cli, server] = await Promise.all([runCli(["serve", PETSTORE, ...args]), runGenerated(args)]);
    expect(server.code).toBe(1);
    expect(cli.code).toBe(1);
    const said = server.stderr.split("\n")[0]!.replace(`${name}: `, "");
    expect(said).toMatch(new RegExp(`^--${option}`));
    expect(cli.stderr.split("\n")[0]).toBe(`openapi-mcp: ${said}`);
  });

  it.concurrent.each([
    [["--auth-token-env", "T"]],
    [["--transport", "http", "--auth-token-env", "T", "--auth-resource", "https://mcp.example.com/mcp"]],
    [["--transport", "http", "--auth-principal-claim", "client_id"]],
    [["--transport", "http", "--auth-resource", "https://mcp.example.com/mcp"]],
    [["--transport", "http", "--auth-issuer", "https://as.example.com"]],
  ])("endpoint auth %j: refused by both in the same words", async (args) => {
    const [cli, server] = await Promise.all([runCli(["serve", PETSTORE, ...args]), runGenerated(args)]);
    expect([cli.code, server.code]).toEqual([1, 1]);
    expect(cli.stderr.split("\n")[0]).toBe(`openapi-mcp: ${server.stderr.split("\n")[0]!.replace(`${name}: `, "")}`);
  });
});
