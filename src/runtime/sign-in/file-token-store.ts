// Users' tokens in one file on this machine, encrypted at rest: each entry sealed as sealed-tokens.ts says
// (AES-256-GCM, keys from OPENAPI_MCP_TOKEN_KEY, under and bound to a keyed digest of principal and scheme). Written
// whole to a temporary file beside it (0600, in a 0700 directory) and renamed over it, so a crash leaves the old file
// or the new, never half of one. A file that cannot be read is never written over: every call says so, naming the
// file, and nothing is lost. A file of the format before keyed ids (LEGACY_FORMAT: unkeyed digests, which anyone can
// compute from a principal) is read, and every entry moved to its keyed id at the next write.

import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { UserError } from "../../catalog/errors.js";
import { type TokenKey as EncryptionKey, TOKEN_KEY_VARIABLE } from "./token-keys.js";
import { entryId, legacyEntryId, type Opened, openEntry, readSealed, type Sealed, sealEntry } from "./sealed-tokens.js";
import type { StoredTokens, TokenKey, TokenStore } from "./token-store.js";

const FORMAT = "openapi-mcp user tokens 2";
/** Ids were unkeyed digests: read, and rewritten in FORMAT at the next change. */
const LEGACY_FORMAT = "openapi-mcp user tokens 1";

/** The file's entries, and whether their ids are the legacy ones. */
interface Entries {
  entries: Record<string, Sealed>;
  legacy: boolean;
}

export class FileTokenStore implements TokenStore {
  /** Writes one after another, so two sign-ins at once both land. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: { file: string; keys: readonly EncryptionKey[]; variable?: string }) {}

  async get(key: TokenKey): Promise<StoredTokens | undefined> {
    const { entries, legacy } = await this.read();
    const id = this.ids({ key, legacy }).find((candidate) => Object.hasOwn(entries, candidate));
    const sealed = id === undefined ? undefined : entries[id];
    if (!sealed || id === undefined) return undefined;
    const opened = this.open({ id, sealed });
    if (!opened || opened.principal !== key.principal || opened.scheme !== key.scheme)
      throw this.unreadable("an entry");
    return opened.tokens;
  }

  put({ principal, scheme, tokens }: TokenKey & { tokens: StoredTokens }): Promise<void> {
    return this.change((entries) => {
      this.remove({ entries, key: { principal, scheme } });
      const [first] = this.options.keys;
      if (first) entries[entryId({ principal, scheme, key: first })] = this.seal({ principal, scheme, tokens });
    });
  }

  async delete(key: TokenKey): Promise<boolean> {
    let found = false;
    await this.change((entries) => {
      found = this.remove({ entries, key });
    });
    return found;
  }

  async list(principal: string): Promise<string[]> {
    const { entries } = await this.read();
    return Object.entries(entries).flatMap(([id, sealed]) => {
      const opened = this.open({ id, sealed });
      return opened?.principal === principal ? [opened.scheme] : [];
    });
  }

  /** The ids an entry of `key` may have: under each key (the first's first), or the legacy one. */
  private ids({ key, legacy }: { key: TokenKey; legacy: boolean }): string[] {
    return legacy ? [legacyEntryId(key)] : this.options.keys.map((k) => entryId({ ...key, key: k }));
  }

  /** Drops `key`'s entry under every id it may have; true when there was one. */
  private remove({ entries, key }: { entries: Record<string, Sealed>; key: TokenKey }): boolean {
    const ids = this.ids({ key, legacy: false }).filter((id) => Object.hasOwn(entries, id));
    for (const id of ids) delete entries[id];
    return ids.length > 0;
  }

  /**
   * Reads the file (a missing one is empty), moves legacy ids to keyed ones and older keys' entries to the first
   * key (sealed with it, under its id), changes it, writes it.
   */
  private change(edit: (entries: Record<string, Sealed>) => void): Promise<void> {
    const next = this.writing.then(async () => {
      const read = await this.read();
      const [first] = this.options.keys;
      const entries: Record<string, Sealed> = {};
      for (const [id, sealed] of Object.entries(read.entries)) {
        const opened = read.legacy || sealed.key !== first?.id ? this.open({ id, sealed }) : undefined;
        if (opened && first) entries[entryId({ ...opened, key: first })] = this.seal(opened);
        // One that no key opens is kept as it is (its key may come back), as are the first key's own.
        else entries[id] = sealed;
      }
      edit(entries);
      await this.write(entries);
    });
    this.writing = next.catch(() => {});
    return next;
  }

  private async read(): Promise<Entries> {
    let text: string;
    try {
      text = await readFile(this.options.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: {}, legacy: false };
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
    const legacy = format === LEGACY_FORMAT;
    if ((format !== FORMAT && !legacy) || typeof entries !== "object" || entries === null || Array.isArray(entries))
      throw this.corrupt(`it is not a token store of this format ("${FORMAT}")`);
    const result: Record<string, Sealed> = {};
    for (const [id, value] of Object.entries(entries as Record<string, unknown>)) {
      const sealed = readSealed(value);
      if (!sealed) throw this.corrupt(`entry ${id} is not an encrypted entry`);
      result[id] = sealed;
    }
    return { entries: result, legacy };
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
