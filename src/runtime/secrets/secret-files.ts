// Secrets read from files (`${file:PATH}`): Docker's /run/secrets, a Kubernetes secret volume. Each use costs one
// stat; the file is read again only when what the stat says changed (inode, size, change time), so a rotated secret
// is used by the next call. Kubernetes rotates by swapping a symlink (atomic), which the stat follows; a writer that
// rewrites the file in place is read until the file holds still and the read matches its size, so no call sends
// half a value. The file must not be readable by group or others unless that is allowed (projected volumes are
// often 0644): the mode checked is the target's, through any symlinks.

import { type BigIntStats, promises as fs, statSync } from "node:fs";
import { SecretUnavailable } from "./secret-references.js";

/** Reads of a file that keeps changing (or stays empty) before it is given up on; each waits a little longer. */
const ATTEMPTS = 8;
const FIRST_WAIT_MS = 5;
/** How long a changed file must hold still after it is read before its content is used. */
const SETTLE_MS = 10;
/** A secret is small; a larger file is refused rather than read into every request. */
export const MAX_SECRET_BYTES = 64 * 1024;

interface Held {
  version: string;
  value: string;
}

export class SecretFiles {
  private readonly held = new Map<string, Held>();
  private readonly reading = new Map<string, Promise<string>>();
  private readonly allowReadable: boolean;

  constructor({ allowReadable = false }: { allowReadable?: boolean } = {}) {
    this.allowReadable = allowReadable;
  }

  /** The file's content without its trailing newline, read again when it changed since the last use. */
  read(path: string): Promise<string> {
    // Calls at the same moment share one look at the file.
    const reading = this.reading.get(path);
    if (reading) return reading;
    const read = this.readNow(path).finally(() => this.reading.delete(path));
    this.reading.set(path, read);
    return read;
  }

  private async readNow(path: string): Promise<string> {
    const reference = `file:${path}` as const;
    const fail = (why: string): SecretUnavailable => new SecretUnavailable({ reference, why });
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const before = await this.stat(path, fail);
      const version = versionOf(before);
      const held = this.held.get(path);
      if (held?.version === version) return held.value;
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(path);
      } catch (error) {
        throw fail(`cannot read it (${(error as NodeJS.ErrnoException).code ?? "error"})`);
      }
      // A writer pausing between its writes leaves the file still for a moment: a new version is taken only once it
      // has held still a little while after it was read (a rotation costs that wait once).
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const after = await this.stat(path, fail);
      // Changing while read, or between a writer's truncation and its write: wait and read again.
      if (versionOf(after) === version && BigInt(bytes.length) === after.size && bytes.length > 0) {
        const value = bytes.toString("utf8").replace(/\r?\n$/, "");
        if (value === "") throw fail("the file holds only a newline");
        this.held.set(path, { version, value });
        return value;
      }
      await new Promise((resolve) => setTimeout(resolve, FIRST_WAIT_MS * 2 ** attempt));
    }
    // A file that never held still: the last whole value read from it, rather than part of a new one.
    const last = this.held.get(path);
    if (last) return last.value;
    throw fail("the file is empty or kept changing while it was read");
  }

  /** What can be checked before any call: the file is there, a regular file, small, and not readable by others. */
  check(path: string): void {
    const fail = (why: string): SecretUnavailable => new SecretUnavailable({ reference: `file:${path}`, why });
    let stats: BigIntStats;
    try {
      stats = statSync(path, { bigint: true });
    } catch (error) {
      throw fail(statFailure(error));
    }
    this.usable(stats, fail);
  }

  private async stat(path: string, fail: (why: string) => SecretUnavailable): Promise<BigIntStats> {
    let stats: BigIntStats;
    try {
      stats = await fs.stat(path, { bigint: true });
    } catch (error) {
      throw fail(statFailure(error));
    }
    return this.usable(stats, fail);
  }

  private usable(stats: BigIntStats, fail: (why: string) => SecretUnavailable): BigIntStats {
    if (!stats.isFile()) throw fail("not a regular file");
    if (stats.size > BigInt(MAX_SECRET_BYTES)) throw fail(`larger than ${MAX_SECRET_BYTES / 1024} KiB`);
    if (!this.allowReadable && (stats.mode & 0o044n) !== 0n) {
      const mode = (stats.mode & 0o777n).toString(8).padStart(3, "0");
      throw fail(
        `the file is readable by ${(stats.mode & 0o004n) !== 0n ? "anyone" : "its group"} (mode ${mode}); chmod 600 it, or allow that with --allow-readable-secret-files (settings allowReadableSecretFiles: true; Kubernetes secret volumes are 0644 unless defaultMode says otherwise)`,
      );
    }
    return stats;
  }
}

function versionOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

function statFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" ? "no such file" : `cannot read it (${code ?? "error"})`;
}
