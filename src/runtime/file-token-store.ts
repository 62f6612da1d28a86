// Users' tokens in one file on this machine, encrypted at rest: each entry sealed as sealed-tokens.ts says
// (AES-256-GCM, keys from OPENAPI_MCP_TOKEN_KEY, bound to a digest of principal and scheme). Written whole to a temporary file beside it
// (0600, in a 0700 directory) and renamed over it, so a crash leaves the old file or the new, never half of one.
// A file that cannot be read is never written over: every call says so, naming the file, and nothing is lost.

import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { UserError } from "../catalog/errors.js";
import { type TokenKey as EncryptionKey, TOKEN_KEY_VARIABLE } from "./token-keys.js";
import { entryId, type Opened, openEntry, readSealed, type Sealed, sealEntry } from "./sealed-tokens.js";
import type { StoredTokens, TokenKey, TokenStore } from "./token-store.js";

const FORMAT = "openapi-mcp user tokens 1";

export class FileTokenStore implements TokenStore {
  /** Writes one after another, so two sign-ins at once both land. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: { file: string; keys: readonly EncryptionKey[]; variable?: string }) {}

  async get(key: TokenKey): Promise<StoredTokens | undefined> {
    const entries = await this.read();
    const id = entryId(key);
    const sealed = Object.hasOwn(entries, id) ? entries[id] : undefined;
    if (!sealed) return undefined;
    const opened = this.open({ id, sealed });
    if (!opened || opened.principal !== key.principal || opened.scheme !== key.scheme)
      throw this.unreadable("an entry");
    return opened.tokens;
  }

  put({ principal, scheme, tokens }: TokenKey & { tokens: StoredTokens }): Promise<void> {
    return this.change((entries) => {
      entries[entryId({ principal, scheme })] = this.seal({ principal, scheme, tokens });
    });
  }

  async delete(key: TokenKey): Promise<boolean> {
    let found = false;
    await this.change((entries) => {
      const id = entryId(key);
      found = Object.hasOwn(entries, id);
      delete entries[id];
    });
    return found;
  }

  async list(principal: string): Promise<string[]> {
    const entries = await this.read();
    return Object.entries(entries).flatMap(([id, sealed]) => {
      const opened = this.open({ id, sealed });
      return opened?.principal === principal ? [opened.scheme] : [];
    });
  }

  /** Reads the file (a missing one is empty), changes it, re-encrypts older entries with the first key, writes it. */
  private change(edit: (entries: Record<string, Sealed>) => void): Promise<void> {
    const next = this.writing.then(async () => {
      const entries = await this.read();
      edit(entries);
      const [first] = this.options.keys;
      for (const [id, sealed] of Object.entries(entries)) {
        if (sealed.key === first?.id) continue;
        const opened = this.open({ id, sealed });
        // One that no key opens is kept as it is: its key may come back.
        if (opened) entries[id] = this.seal(opened);
      }
      await this.write(entries);
    });
    this.writing = next.catch(() => {});
    return next;
  }

  private async read(): Promise<Record<string, Sealed>> {
    let text: string;
    try {
      text = await readFile(this.options.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw new UserError({
        code: "E_TOKEN_STORE",
        message: `the token store ${this.options.file} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}); nothing was changed`,
      });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw this.corrupt("it is not JSON");
    }
    const { format, entries } = (parsed ?? {}) as { format?: unknown; entries?: unknown };
    if (format !== FORMAT || typeof entries !== "object" || entries === null || Array.isArray(entries))
      throw this.corrupt(`it is not a token store of this format ("${FORMAT}")`);
    const result: Record<string, Sealed> = {};
    for (const [id, value] of Object.entries(entries as Record<string, unknown>)) {
      const sealed = readSealed(value);
      if (!sealed) throw this.corrupt(`entry ${id} is not an encrypted entry`);
      result[id] = sealed;
    }
    return result;
  }

  private async write(entries: Record<string, Sealed>): Promise<void> {
    const { file } = this.options;
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify({ format: FORMAT, entries }, null, 1)}\n`, { mode: 0o600 });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw new UserError({
        code: "E_TOKEN_STORE",
        message: `the token store ${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? "error"}); it was left as it was`,
      });
    }
  }

  private seal(entry: Opened): Sealed {
    const [first] = this.options.keys;
    if (!first) throw this.unreadable("the store");
    return sealEntry({ entry, key: first });
  }

  /** The entry in clear, or undefined when no key opens it (or it was changed). */
  private open({ id, sealed }: { id: string; sealed: Sealed }): Opened | undefined {
    return openEntry({ id, sealed, keys: this.options.keys });
  }

  private corrupt(why: string): UserError {
    return new UserError({
      code: "E_TOKEN_STORE",
      message: `the token store ${this.options.file} is damaged: ${why}. Nothing was changed; move it aside to start afresh (every user then signs in again)`,
    });
  }

  private unreadable(what: string): UserError {
    return new UserError({
      code: "E_TOKEN_STORE",
      message: `${what} of the token store ${this.options.file} does not decrypt with the keys in ${this.options.variable ?? TOKEN_KEY_VARIABLE}: put back the key it was written with (keys may be listed comma-separated, the first encrypts); nothing was changed`,
    });
  }
}
