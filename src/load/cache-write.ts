// Writing a catalog cache entry: whole or not at all (a file of its own, renamed over the entry), streamed as it
// is made so the entry is never held whole, and older entries for the same sources removed. A directory that cannot
// be used is no error: the caller's `warn` is told once a process, its `log` every time.

import { createHash, randomBytes } from "node:crypto";
import { type FileHandle, open, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { prepareCacheDirectory } from "./cache-dir.js";
import { entryHead } from "./cache-entry.js";

let warned = false;

/** Written whole or not at all: to a file of its own, then renamed over the entry. Older entries for the same sources go. */
export async function writeEntry({
  dir,
  file,
  prefix,
  body,
  log,
  warn,
}: {
  dir: string;
  file: string;
  prefix: string;
  body: Iterable<string>;
  log?: ((line: string) => void) | undefined;
  warn?: ((line: string) => void) | undefined;
}): Promise<void> {
  const unusable = (line: string): void => {
    log?.(line);
    if (warn && !warned) warn(line);
    warned = true;
  };
  const problem = prepareCacheDirectory(dir);
  if (problem) {
    unusable(`catalog cache: not used: ${problem}`);
    return;
  }
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const handle = await open(temporary, "wx", 0o600);
    try {
      await writeStreamed({ handle, body });
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
    for (const name of await readdir(dir)) {
      if (name.startsWith(prefix) && name.endsWith(".catalog") && join(dir, name) !== file)
        await rm(join(dir, name), { force: true });
    }
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    unusable(`catalog cache: could not write ${file}: ${(error as Error).message}`);
  }
}

const BATCH_BYTES = 1024 * 1024;

/**
 * The body written as it is made, after room for the first line, which is written last: its digest is of the body,
 * known once the body is out. At no time is the entry held whole.
 */
async function writeStreamed({ handle, body }: { handle: FileHandle; body: Iterable<string> }): Promise<void> {
  const hash = createHash("sha256");
  let position = Buffer.byteLength(entryHead("0".repeat(64)));
  let batch: Buffer[] = [];
  let size = 0;
  const flush = async (): Promise<void> => {
    position += await writeAll({ handle, bytes: Buffer.concat(batch, size), position });
    batch = [];
    size = 0;
  };
  for (const piece of body) {
    const bytes = Buffer.from(piece);
    hash.update(bytes);
    batch.push(bytes);
    size += bytes.length;
    if (size >= BATCH_BYTES) await flush();
  }
  await flush();
  await writeAll({ handle, bytes: Buffer.from(entryHead(hash.digest("hex"))), position: 0 });
}

async function writeAll({
  handle,
  bytes,
  position,
}: {
  handle: FileHandle;
  bytes: Buffer;
  position: number;
}): Promise<number> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    if (bytesWritten === 0) throw new Error("nothing written");
    done += bytesWritten;
  }
  return bytes.length;
}
