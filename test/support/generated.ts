// Building generated projects inside the test suite: each gets a symlink to this repository's node_modules (the
// same SDK, undici, ajv, jose and TypeScript the project declares), so no install runs and CI stays fast.

import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPOSITORY = resolve(import.meta.dirname, "../..");
const TSC = join(REPOSITORY, "node_modules/typescript/bin/tsc");

/** A fresh directory for a project, inside the test file's scratch directory (removed when the file ends). */
export function temporaryProjectDir(label: string): string {
  const parent = process.env.OPENAPI_MCP_TEST_SCRATCH ?? tmpdir();
  return join(mkdtempSync(join(parent, `generated-${label}-`)), "project");
}

export function linkDependencies(project: string): void {
  symlinkSync(join(REPOSITORY, "node_modules"), join(project, "node_modules"), "dir");
}

/** Runs the project's strict `tsc`; returns its output ("" when it compiled cleanly), never throws. */
export function typecheck(project: string, { emit = true }: { emit?: boolean } = {}): string {
  try {
    execFileSync(process.execPath, [TSC, "-p", join(project, "tsconfig.json"), ...(emit ? [] : ["--noEmit"])], {
      encoding: "utf8",
      stdio: "pipe",
    });
    return "";
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    return `${stdout}${stderr}`.trim() || String(error);
  }
}

/** `typecheck` without blocking, so several projects compile at once; "" when clean. */
export function typecheckInBackground(project: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, "-p", join(project, "tsconfig.json"), "--noEmit"],
      { encoding: "utf8", maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        resolve(error ? `${stdout}${stderr}`.trim() || String(error) : "");
      },
    );
  });
}
