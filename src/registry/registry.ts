// A registry of sources (`serve --registry <dir>`, or the files of `serve <files> --watch`): read them, check each
// new text as `validate` does, and publish the catalog of every source's newest good text. A text that fails is
// not published: the source's previous version keeps serving, and its errors are kept for status() (the console)
// and logged. Refreshes run one at a time; a change during one starts another after it.

import { createHash } from "node:crypto";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { messageOf, UserError } from "../catalog/errors.js";
import type { SecretAssignments } from "../catalog/secret-assignments.js";
import type { Catalog } from "../catalog/types.js";
import type { LoadOptions } from "../load/sources.js";
import { Drafts } from "./drafts.js";
import { refusedClaims } from "./namespace-claims.js";
import { checkSourceName, sourceNameProblem } from "./source-name.js";
import { checkSource, loadFromBytes, refuseErrors, type SourceBytes } from "./load.js";
import {
  errorLines,
  type PublishOutcome,
  type RegistryStatus,
  type SourceError,
  type SourceStatus,
  thrownErrors,
} from "./status.js";

export interface RegistryOptions {
  /** The directory of sources (`--registry`); or `files`, the sources of `serve <files> --watch`. */
  dir?: string;
  files?: string[];
  /** How sources load (filters, base URL, server variables…), as serve loads them. */
  load: LoadOptions;
  /** Serves a new catalog (reload the engine, swap the provider); throws a UserError when it cannot be served. */
  apply: (catalog: Catalog) => Promise<void>;
  log: (line: string) => void;
}

interface Published extends SourceBytes {
  digest: string;
}

export class Registry {
  private published = new Map<string, Published>();
  private readonly statuses = new Map<string, SourceStatus>();
  /** The digest of each source's latest text seen, published or not: an unchanged file is not checked again. */
  private readonly seen = new Map<string, string>();
  private version = 0;
  private publishedAt = new Date().toISOString();
  private tools = 0;
  private reloadMs = 0;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly options: RegistryOptions) {}

  /** The first catalog: from a directory, what passes (the rest logged); from files, all or a refusal to start. */
  async start(): Promise<Catalog> {
    const started = performance.now();
    const texts = await this.read();
    const passed: string[] = [];
    for (const [name, source] of texts) {
      const errors = await checkSource({ source, options: this.loadOptions() });
      this.seen.set(name, source.digest);
      if (errors.length > 0 && this.options.files)
        throw new UserError({ code: "E_CATALOG", message: `not starting: errors in ${name}:\n${errorLines(errors)}` });
      if (errors.length > 0) this.reject(name, errors);
      else passed.push(name);
    }
    const clashes = this.clashes({ held: [], candidates: passed });
    for (const name of passed) {
      const clash = clashes.get(name);
      if (clash) this.reject(name, [{ message: clash, file: texts.get(name)!.path }]);
      else this.published.set(name, texts.get(name)!);
    }
    const catalog = await this.build(this.published);
    this.settle({ catalog, started, names: [...this.published.keys()] });
    return catalog;
  }

  status(): RegistryStatus {
    const { dir, files } = this.options;
    return {
      watching: dir ?? (files ?? []).join(", "),
      version: this.version,
      publishedAt: this.publishedAt,
      tools: this.tools,
      reloadMs: this.reloadMs,
      sources: [...this.statuses.values()].sort((a, b) => a.name.localeCompare(b.name)).map((s) => ({ ...s })),
    };
  }

  /** Reads the sources again and publishes what changed; settles when that is served (or refused). */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.publishChanges();
        } catch (error) {
          this.options.log(`openapi-mcp: registry: not published: ${messageOf(error)}`);
        }
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Checks a source's text and, when it passes, writes it into the directory (a temporary file renamed over the
   * old, so the watcher never reads half of it) and publishes it. Refused without a change when it fails.
   */
  async publish({ name, text }: { name: string; text: string }): Promise<PublishOutcome> {
    const { dir } = this.options;
    if (!dir) throw new UserError({ code: "E_REGISTRY", message: "publish needs a registry directory (--registry)" });
    checkSourceName({ name, doing: "publish" });
    const path = join(dir, name);
    const bytes = Buffer.from(text, "utf8");
    // Refused before anything is written: a file left behind would clash again at the next start.
    const clash = this.namespaceTaken(name);
    if (clash) return { published: false, name, errors: [{ message: clash, file: path }] };
    const errors = await checkSource({ source: { path, bytes }, options: this.loadOptions() });
    if (errors.length > 0) return { published: false, name, errors };
    const temporary = join(dir, `.${name}.${process.pid}.${Date.now()}.tmp`);
    await writeFile(temporary, bytes);
    try {
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await this.refresh();
    const status = this.statuses.get(name);
    if (status?.state === "published" && this.published.get(name)?.digest === digestOf(bytes))
      return { published: true, name, version: this.version, tools: this.tools };
    return { published: false, name, errors: status?.errors ?? [{ message: "a newer text of it came meanwhile" }] };
  }

  private async publishChanges(): Promise<void> {
    const started = performance.now();
    const texts = await this.read();
    const next = new Map(this.published);
    const changed: string[] = [];
    for (const name of this.published.keys()) if (!texts.has(name)) next.delete(name);
    for (const name of this.statuses.keys())
      if (!texts.has(name)) {
        this.statuses.delete(name);
        this.seen.delete(name);
      }
    const passed: string[] = [];
    for (const [name, source] of texts) {
      if (this.seen.get(name) === source.digest) continue;
      this.seen.set(name, source.digest);
      const errors = await checkSource({ source, options: this.loadOptions() });
      // A text that fails and takes another's namespace is told both.
      const clash = errors.length > 0 ? this.namespaceTaken(name) : undefined;
      if (errors.length > 0) this.reject(name, clash ? [{ message: clash, file: source.path }, ...errors] : errors);
      else passed.push(name);
    }
    const clashes = this.clashes({ held: next.keys(), candidates: passed });
    for (const name of passed) {
      const clash = clashes.get(name);
      if (clash) this.reject(name, [{ message: clash, file: texts.get(name)!.path }]);
      else {
        next.set(name, texts.get(name)!);
        changed.push(name);
      }
    }
    if (sameSources(next, this.published)) return;
    let catalog: Catalog;
    try {
      catalog = await this.build(next);
      await this.options.apply(catalog);
    } catch (error) {
      const refused = thrownErrors(error, "");
      for (const name of changed)
        this.reject(
          name,
          refused.map((e) => ({ ...e, file: e.file || next.get(name)!.path })),
        );
      if (changed.length === 0) this.options.log(`openapi-mcp: registry: not published:\n${errorLines(refused)}`);
      return;
    }
    this.published = next;
    this.settle({ catalog, started, names: changed });
  }

  /** The catalog of these sources, in name order. */
  private async build(sources: Map<string, Published>): Promise<Catalog> {
    const ordered = [...sources.keys()].sort().map((name) => sources.get(name)!);
    const catalog = await loadFromBytes({ sources: ordered, options: this.loadOptions() });
    refuseErrors(catalog);
    return catalog;
  }

  private settle({ catalog, started, names }: { catalog: Catalog; started: number; names: string[] }): void {
    const now = new Date().toISOString();
    this.version++;
    this.publishedAt = now;
    this.tools = catalog.tools.length;
    this.reloadMs = Math.round(performance.now() - started);
    for (const name of names) {
      const source = this.published.get(name)!;
      const before = this.statuses.get(name);
      this.statuses.set(name, {
        name,
        version: (before?.version ?? 0) + 1,
        digest: source.digest.slice(0, 12),
        publishedAt: now,
        state: "published",
        errors: [],
        checkedAt: now,
      });
    }
    const what = names.length > 0 ? names.join(", ") : "removal";
    this.options.log(
      `openapi-mcp: registry: catalog version ${this.version} (${what}): ${this.tools} tools from ${this.published.size} sources, ${this.reloadMs} ms`,
    );
  }

  private reject(name: string, errors: SourceError[]): void {
    const before = this.statuses.get(name);
    const now = new Date().toISOString();
    this.statuses.set(name, {
      name,
      version: before?.version ?? 0,
      ...(before?.digest ? { digest: before.digest } : {}),
      ...(before?.publishedAt ? { publishedAt: before.publishedAt } : {}),
      state: "rejected",
      errors,
      checkedAt: now,
    });
    const keeps = this.published.has(name) ? "its previous version keeps serving" : "it serves no tools";
    this.options.log(`openapi-mcp: registry: ${name} not published (${keeps}):\n${errorLines(errors)}`);
  }

  /** Every source's text now, by name. */
  private async read(): Promise<Map<string, Published>> {
    const { dir, files } = this.options;
    const paths = dir
      ? (await listDir(dir))
          .filter((name) => sourceNameProblem(name) === undefined)
          .map((name) => ({ name, path: join(dir, name) }))
      : (files ?? []).map((path) => ({ name: path, path }));
    const texts = new Map<string, Published>();
    for (const { name, path } of paths) {
      try {
        const bytes = await readFile(path);
        texts.set(name, { path, bytes, digest: digestOf(bytes) });
      } catch (error) {
        // Gone between the listing and the read (a rename, a removal): as if not there.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    return texts;
  }

  /**
   * A directory's sources are each namespaced after their file, and read nothing outside the directory (console
   * admins may write them); given files as serve would (when several): they are the operator's own.
   */
  private loadOptions(): LoadOptions {
    const { dir, files } = this.options;
    return {
      ...this.options.load,
      namespaceEach: dir !== undefined || (files?.length ?? 0) > 1,
      ...(dir !== undefined ? { confined: { dir } } : {}),
    };
  }

  /** Texts not yet published, checked and loaded as this registry checks and loads its sources (the Author page). */
  drafts(assignments: SecretAssignments): Drafts {
    const { dir } = this.options;
    return new Drafts({
      load: () => this.loadOptions(),
      assignments,
      taken: (name) => this.namespaceTaken(name),
      ...(dir ? { dir } : {}),
    });
  }

  /** Why a source named so may not be published beside those published (another has its namespace), if so. */
  namespaceTaken(name: string): string | undefined {
    return this.clashes({ held: this.published.keys(), candidates: [name] }).get(name);
  }

  /**
   * The candidates refused for a namespace another source has (namespace-claims.ts). A directory's only: watched
   * files are the operator's command line, whose clashes the loader refuses at start (and their names never change).
   */
  private clashes(claims: Parameters<typeof refusedClaims>[0]): Map<string, string> {
    return this.options.dir !== undefined ? refusedClaims(claims) : new Map();
  }

  /** The file names `dir` or `files` watch, for the watcher. */
  watched(): { dir: string; names?: Set<string> }[] {
    const { dir, files } = this.options;
    if (dir) return [{ dir }];
    const byDir = new Map<string, Set<string>>();
    for (const file of files ?? []) {
      const parent = join(file, "..");
      byDir.set(parent, (byDir.get(parent) ?? new Set()).add(basename(file)));
    }
    return [...byDir].map(([d, names]) => ({ dir: d, names }));
  }
}

/** The directory's entries; a directory that is not there (or not one) is the user's to fix, said so. */
async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EACCES") throw error;
    const why = code === "ENOENT" ? "no such directory" : code === "ENOTDIR" ? "not a directory" : "permission denied";
    throw new UserError({ code: "E_REGISTRY", message: `--registry ${dir}: ${why}` });
  }
}

function digestOf(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function sameSources(a: Map<string, Published>, b: Map<string, Published>): boolean {
  return a.size === b.size && [...a].every(([name, source]) => b.get(name)?.digest === source.digest);
}
