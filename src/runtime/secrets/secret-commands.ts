// Secrets printed by a credential process (`${cmd:NAME}`, settings `secrets: { NAME: { command: [...] } }`): a
// secret manager's own client (vault, aws, gcloud, op, pass) run without a shell, its stdout the value. A value is
// kept for its TTL; calls needing it meanwhile share one run; a 401 from the API drops it, so the retry runs the
// command again. A failing, silent or slow command (killed at its timeout) stops the call: the error names the
// secret, never its value, and what the command wrote to stderr goes only to the operator's log, masked.

import { spawn } from "node:child_process";
import { maskText } from "./secrets.js";
import { SecretUnavailable } from "./secret-references.js";

export interface SecretCommand {
  /** The program and its arguments: no shell, so nothing in them is expanded or split. */
  command: string[];
  /** How long a value is used before the command runs again (default 300). */
  ttlSeconds?: number;
  /** The command is killed after this long (default 10 000). */
  timeoutMs?: number;
}

export const DEFAULT_SECRET_TTL_SECONDS = 300;
export const DEFAULT_SECRET_TIMEOUT_MS = 10_000;
/** More output than this is not a secret: the command is killed and the call refused. */
const MAX_OUTPUT_BYTES = 64 * 1024;
/** Of a failing command's stderr, the operator's log shows this much of the first line. */
const STDERR_CHARS = 200;

interface Kept {
  value: string;
  expires: number;
}

export class SecretCommands {
  private readonly commands: Record<string, SecretCommand>;
  private readonly kept = new Map<string, Kept>();
  private readonly running = new Map<string, Promise<string>>();
  private readonly log: (line: string) => void;
  /** Values a command printed lately (the current and earlier ones), masked in what a failing run writes. */
  private readonly seen: (name: string) => string[];

  constructor({
    commands = {},
    log = () => {},
    seen = () => [],
  }: {
    commands?: Record<string, SecretCommand>;
    log?: (line: string) => void;
    seen?: (name: string) => string[];
  }) {
    this.commands = commands;
    this.log = log;
    this.seen = seen;
  }

  has(name: string): boolean {
    return Object.hasOwn(this.commands, name);
  }

  names(): string[] {
    return Object.keys(this.commands);
  }

  async value(name: string): Promise<string> {
    const kept = this.kept.get(name);
    if (kept && kept.expires > Date.now()) return kept.value;
    const running = this.running.get(name);
    if (running) return running;
    const run = this.run(name).finally(() => this.running.delete(name));
    this.running.set(name, run);
    return run;
  }

  /** Drops the value the API refused (not a newer one another call already has). */
  forget({ name, value }: { name: string; value: string }): void {
    if (this.kept.get(name)?.value === value) this.kept.delete(name);
  }

  private async run(name: string): Promise<string> {
    const reference = `cmd:${name}` as const;
    const spec = this.has(name) ? this.commands[name] : undefined;
    if (!spec) throw new SecretUnavailable({ reference, why: "no such command in the settings file's secrets" });
    const [program = "", ...args] = spec.command;
    const timeoutMs = spec.timeoutMs ?? DEFAULT_SECRET_TIMEOUT_MS;
    let value: string;
    try {
      value = await runCommand({ program, args, timeoutMs });
    } catch (error) {
      if (!(error instanceof CommandFailed)) throw error;
      // Its output may hold the secret (or a new one, printed before it failed): masked, and only in the log.
      const masks = [...this.seen(name), ...error.stdout.split("\n").map((line) => line.trim())];
      const line = maskText(error.stderr.trim().split("\n")[0] ?? "", masks).slice(0, STDERR_CHARS);
      this.log(`secret ${reference}: the command ${error.message}${line ? `; its stderr: ${line}` : ""}`);
      throw new SecretUnavailable({ reference, why: `the command ${error.message}` });
    }
    this.kept.set(name, { value, expires: Date.now() + (spec.ttlSeconds ?? DEFAULT_SECRET_TTL_SECONDS) * 1000 });
    return value;
  }
}

class CommandFailed extends Error {
  constructor(
    why: string,
    readonly stdout = "",
    readonly stderr = "",
  ) {
    super(why);
  }
}

/**
 * Its stdout without the trailing newline. The command runs in a process group of its own, killed whole at the
 * timeout: a script's `sleep` would otherwise hold the output open after the script itself is gone.
 */
function runCommand({
  program,
  args,
  timeoutMs,
}: {
  program: string;
  args: string[];
  timeoutMs: number;
}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      shell: false,
      detached: process.platform !== "win32",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let stopped: string | undefined;
    const kill = (why: string): void => {
      stopped ??= why;
      try {
        if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => kill(`did not finish within ${timeoutMs} ms (killed)`), timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_OUTPUT_BYTES) kill(`printed more than ${MAX_OUTPUT_BYTES / 1024} KiB (killed)`);
      else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errBytes += chunk.length;
      if (errBytes <= MAX_OUTPUT_BYTES) err.push(chunk);
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new CommandFailed(`could not be started (${error.code ?? "error"})`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      if (stopped) return reject(new CommandFailed(stopped, stdout, stderr));
      if (code !== 0) return reject(new CommandFailed(`failed (exit code ${String(code)})`, stdout, stderr));
      const printed = stdout.replace(/\r?\n$/, "");
      if (printed.trim() === "") return reject(new CommandFailed("printed nothing", stdout, stderr));
      resolve(printed);
    });
  });
}
