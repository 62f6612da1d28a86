// The option table's good values, defaults and settings keys: `serve`'s own parse path (its commander declarations
// and reader) and a generated server's read every option's good values into the same settings; the defaults the
// help states are the ones applied; and the settings file's schema gives each key what its option accepts.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readServeOptions } from "../../src/cli/serve.js";
import {
  DEFAULT_TIMEOUT_MS,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  RUNTIME_OPTIONS,
  type RuntimeOption,
  DEFAULT_APPROVAL_TIMEOUT_MS as APPROVAL_IN_MCP,
} from "../../src/runtime/options.js";
import { settingsSchemaProperties } from "../../src/runtime/option-schema.js";
import {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL,
  DEFAULT_MAX_QUEUED,
  DEFAULT_QUEUE_TIMEOUT_MS,
} from "../../src/runtime/limits/in-flight.js";
import { DEFAULT_REQUEST_LIMITS } from "../../src/server/bodies.js";
import { DEFAULT_SESSION_LIMITS } from "../../src/server/sessions.js";
import { readServerCommandLine } from "../../src/server/command-line.js";
import { REPOSITORY } from "../support/generated.js";
import { DEFAULT_SCRIPT_LIMITS } from "../../src/runtime/modes/sandbox/script.js";
import { DEFAULT_SCRIPT_TURN } from "../../src/runtime/modes/sandbox/turns.js";

/** Values each kind of option must take. */
function goodValues(option: RuntimeOption): string[][] {
  const { kind } = option;
  if (kind === "flag") return [[`--${option.name}`]];
  if (kind === "positive") return [[`--${option.name}`, "1"], [`--${option.name}`, "60000"], [`--${option.name}=007`]];
  if (kind === "port")
    return [
      [`--${option.name}`, "0"],
      [`--${option.name}`, "65535"],
    ];
  if (typeof kind === "object") return kind.choices.map((choice) => [`--${option.name}`, choice]);
  if (option.name === "policy")
    return [
      ["--policy", "read=allow"],
      ["--policy", "write=deny", "--policy", "deletePet=allow"],
    ];
  if (option.name.startsWith("auth-")) return [];
  if (kind === "list") return [[`--${option.name}`, "tag:pets", `--${option.name}`, "method:get"]];
  return [[`--${option.name}`, "https://api.example.com/v2"]];
}

const generated = (args: string[]) => {
  const read = readServerCommandLine({ args, env: {} });
  if (!("settings" in read)) throw new Error("help");
  return read.settings;
};

/** What an option reads into, wherever it goes. */
function readInto(values: Record<string, unknown>, option: RuntimeOption): unknown {
  const from = option.in ? (values[option.in] as Record<string, unknown>) : values;
  return from[option.key!];
}

describe("every option's good values read alike", () => {
  const cases = RUNTIME_OPTIONS.filter((o) => !o.serveOnly).flatMap((option) =>
    goodValues(option).map((args) => ({ name: option.name, args })),
  );
  it.each(cases)("$args", ({ name, args }) => {
    const option = RUNTIME_OPTIONS.find((o) => o.name === name)!;
    const cli = readServeOptions(args) as unknown as Record<string, unknown>;
    const server = generated(args) as unknown as Record<string, unknown>;
    expect(readInto(cli, option)).toBeDefined();
    expect(readInto(cli, option)).toEqual(readInto(server, option));
  });

  it.each([
    [["--transport", "http", "--auth-token-env", "MCP_TOKENS"]],
    [
      [
        "--transport",
        "http",
        "--auth-resource",
        "https://mcp.example.com/mcp",
        "--auth-issuer",
        "https://as.example.com",
        "--auth-audience",
        "a",
        "--auth-scope",
        "s",
        "--auth-jwks-url",
        "https://as.example.com/jwks",
        "--auth-principal-claim",
        "client_id",
      ],
    ],
    [
      [
        "--transport",
        "http",
        "--allow-insecure-http",
        "--auth-resource",
        "http://mcp.example.com/mcp",
        "--auth-issuer",
        "http://as.example.com",
      ],
    ],
  ])("endpoint auth %j", (args) => {
    expect(readServeOptions(args).auth).toBeDefined();
    expect(readServeOptions(args).auth).toEqual(generated(args).auth);
  });
});

describe("defaults", () => {
  it("the defaults the help states are the ones applied", () => {
    const stated = Object.fromEntries(
      RUNTIME_OPTIONS.filter((o) => o.default !== undefined).map((o) => [o.name, o.default]),
    );
    const server = generated([]);
    expect(stated).toEqual({
      transport: server.transport,
      port: server.port,
      host: server.host,
      mode: server.mode,
      timeout: DEFAULT_TIMEOUT_MS,
      "max-response-bytes": 1024 * 1024,
      "output-validation": "strict",
      "response-text": "strip",
      state: "memory",
      "state-fail": "closed",
      policy: "destructive=approve",
      "session-idle-timeout": DEFAULT_SESSION_LIMITS.idleTimeoutMs / 1000,
      "max-sessions": DEFAULT_SESSION_LIMITS.maxSessions,
      "max-sessions-per-principal": DEFAULT_SESSION_LIMITS.maxSessionsPerPrincipal,
      "headers-timeout": DEFAULT_REQUEST_LIMITS.headersTimeoutMs / 1000,
      "request-timeout": DEFAULT_REQUEST_LIMITS.requestTimeoutMs / 1000,
      "max-pending-body-bytes": DEFAULT_REQUEST_LIMITS.maxPendingBodyBytes,
      "max-pending-body-bytes-per-principal": DEFAULT_REQUEST_LIMITS.maxPendingBodyBytesPerPrincipal,
      "max-in-flight": DEFAULT_MAX_IN_FLIGHT,
      "max-in-flight-per-principal": DEFAULT_MAX_IN_FLIGHT_PER_PRINCIPAL,
      "max-queued": DEFAULT_MAX_QUEUED,
      "queue-timeout": DEFAULT_QUEUE_TIMEOUT_MS,
      // What the sandbox applies when code mode is given no limit.
      "script-timeout": DEFAULT_SCRIPT_LIMITS.wallMs,
      "script-cpu": DEFAULT_SCRIPT_LIMITS.cpuMs,
      "script-memory": DEFAULT_SCRIPT_LIMITS.memoryBytes,
      "script-stack": DEFAULT_SCRIPT_LIMITS.stackBytes,
      "script-max-calls": DEFAULT_SCRIPT_LIMITS.maxApiCalls,
      "script-max-output-bytes": DEFAULT_SCRIPT_LIMITS.maxOutputBytes,
      // What bounds the scripts waiting for a worker when code mode is given none.
      "script-max-queued": DEFAULT_SCRIPT_TURN.maxQueued,
      "script-queue-bytes": DEFAULT_SCRIPT_TURN.queueBytes,
      "script-queue-bytes-per-principal": DEFAULT_SCRIPT_TURN.queueBytesPerPrincipal,
    });
    expect(APPROVAL_IN_MCP).toBe(DEFAULT_APPROVAL_TIMEOUT_MS);
  });

  it("serve leaves unset what a settings file may set; a generated server reads the file into the same place", () => {
    const cli = readServeOptions([]);
    expect(cli).toEqual({ include: [], exclude: [], policies: [], sessions: {}, requests: {}, script: {} });
  });
});

describe("the settings file's schema", () => {
  it("gives each option's settings key what the option accepts (scripts/settings-schema.mjs writes it)", () => {
    const schema = JSON.parse(readFileSync(join(REPOSITORY, "schemas/settings.schema.json"), "utf8")) as {
      properties: Record<string, unknown>;
    };
    const derived = settingsSchemaProperties();
    expect(Object.keys(derived).length).toBeGreaterThan(15);
    for (const [key, value] of Object.entries(derived)) expect(schema.properties[key], key).toEqual(value);
  });
});
