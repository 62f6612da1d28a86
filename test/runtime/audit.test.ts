import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loggedArguments, openAuditLog, safeRecord } from "../../src/runtime/audit/audit.js";
import type { AuditRecord } from "../../src/runtime/audit/audit-record.js";
import { MAX_AUDIT_LINE_BYTES } from "../../src/runtime/audit/audit-line.js";

describe("audit log", () => {
  it("logs argument names with scalar values, redacting sensitive-looking names and summarising structures", () => {
    expect(
      loggedArguments({
        petId: 7,
        name: "Rex",
        password: "hunter2",
        apiKey: "k",
        X_Auth_Token: "t",
        sessionId: "s",
        body: { a: 1 },
        tags: ["a", "b"],
        note: "x".repeat(300),
        flag: false,
        nothing: null,
      }),
    ).toEqual({
      petId: 7,
      name: "Rex",
      password: "[redacted]",
      apiKey: "[redacted]",
      X_Auth_Token: "[redacted]",
      sessionId: "[redacted]",
      body: "[object]",
      tags: "[array of 2]",
      note: `${"x".repeat(200)}…`,
      flag: false,
      nothing: null,
    });
    expect(loggedArguments("not an object")).toEqual({});
  });

  it("masks every secret value, in the URL and anywhere else in the record", () => {
    const record: AuditRecord = {
      time: "2026-11-22T00:00:00.000Z",
      tool: "getPet",
      method: "GET",
      url: "https://api.example.com/pets/7?api_key=s3cr3t%2Fkey",
      arguments: { petId: 7, note: "my key is s3cr3t/key" },
      status: 200,
      durationMs: 12,
      outcome: "ok",
    };
    const safe = JSON.stringify(safeRecord(record, ["s3cr3t/key"]));
    expect(safe).not.toContain("s3cr3t");
    expect(safe).toContain("api_key=****");
  });

  it("bounds every field a caller can influence, escapes and all, masking before it cuts", () => {
    const big = (unit: string) => unit.repeat(500_000);
    const record: AuditRecord = {
      time: "2026-11-22T00:00:00.000Z",
      session: big("s"),
      principal: big("\u0001"),
      profile: big("p"),
      tool: big("é"),
      method: "GET",
      url: `https://api.example.com/${big('"')}`,
      arguments: { [`s3cr3t-key${big("n")}`]: "v", [big("😀")]: big("\n"), a: 1 },
      secrets: Array.from({ length: 1_000 }, (_, i) => `\${file:/run/secrets/${i}-${"r".repeat(300)}}`),
      approvedBy: big("a"),
      durationMs: 1,
      outcome: "ok",
    };
    const safe = safeRecord(record, ["s3cr3t-key"]);
    const line = JSON.stringify(safe);
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_AUDIT_LINE_BYTES);
    for (const field of ["session", "principal", "profile", "tool", "url", "approvedBy"] as const)
      expect(safe[field]).toMatch(/…$/);
    expect(safe.tool).toMatch(/^é+…$/);
    // No half surrogate pair where an emoji name is cut.
    expect(line).not.toContain("\\ud83d");
    expect(Object.keys(safe.arguments).length + (safe.argumentsNotShown ?? 0)).toBe(3);
    expect(safe.secrets!.at(-1)).toMatch(/^\(and \d+ more\)$/);
    expect(line).not.toContain("s3cr3t");
  });

  it("appends one JSON line per record to a file", () => {
    const file = join(mkdtempSync(join(tmpdir(), "audit-")), "audit.jsonl");
    const log = openAuditLog(file);
    const base = { time: "t", tool: "a", arguments: {}, durationMs: 1, outcome: "ok" as const };
    log.write(base);
    log.write({ ...base, tool: "b", outcome: "denied" });
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => [l.tool, l.outcome])).toEqual([
      ["a", "ok"],
      ["b", "denied"],
    ]);
  });

  it("refuses a file it cannot open with a message naming it", () => {
    expect(() => openAuditLog("/nonexistent-dir/audit.jsonl")).toThrow(
      /--audit-log \/nonexistent-dir\/audit.jsonl: cannot open/,
    );
  });
});
