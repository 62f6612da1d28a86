// Where `${file:…}` and `${cmd:…}` references are resolved, one per engine: files read again when they change,
// commands run again when their value's TTL is out or the API refused it. It remembers the last few values of each
// reference, so a value rotated away while a call still carried it is masked in the output of every call that uses
// that reference.

import { UserError } from "../../catalog/errors.js";
import { type SecretCommand, SecretCommands } from "./secret-commands.js";
import { SecretFiles } from "./secret-files.js";
import {
  COMMAND_NAME,
  referencesIn,
  replaceReferences,
  type SecretReference,
  SecretUnavailable,
} from "./secret-references.js";

/** Values of one reference remembered for masking (the current one and those before it). */
const REMEMBERED = 4;

export interface Expanded {
  value: string;
  /** The references it held, for the audit line. */
  references: SecretReference[];
  /** The values they gave, to mask. */
  values: string[];
  /** The references from credential processes, with the values given: dropped when the API refuses them. */
  commands: Array<{ name: string; value: string }>;
  /** On a dry run, what stands for each credential process's value (none is run: a run may reach a service). */
  placeholders: string[];
}

export class SecretSources {
  private readonly files: SecretFiles;
  private readonly commands: SecretCommands;
  private readonly recent = new Map<SecretReference, string[]>();

  constructor({
    commands,
    allowReadableFiles,
    log,
  }: { commands?: Record<string, SecretCommand>; allowReadableFiles?: boolean; log?: (line: string) => void } = {}) {
    this.files = new SecretFiles({ allowReadable: allowReadableFiles ?? false });
    this.commands = new SecretCommands({
      ...(commands ? { commands } : {}),
      ...(log ? { log } : {}),
      seen: (name) => this.recent.get(`cmd:${name}`) ?? [],
    });
  }

  /**
   * The text with its references replaced by their current values. Rejects with SecretUnavailable. On a dry run a
   * credential process is not run (it may reach a secret manager over the network): a placeholder stands for it.
   */
  async expand(text: string, { dryRun = false }: { dryRun?: boolean } = {}): Promise<Expanded> {
    const references = [...new Set(referencesIn(text))];
    const commands: Expanded["commands"] = [];
    const values: string[] = [];
    const placeholders: string[] = [];
    const value = await replaceReferences({
      text,
      resolve: async (reference) => {
        if (dryRun && reference.startsWith("cmd:")) {
          const placeholder = `<${reference} is not run on a dry run>`;
          placeholders.push(placeholder);
          return placeholder;
        }
        const found = await this.resolve(reference);
        values.push(found);
        if (reference.startsWith("cmd:")) commands.push({ name: reference.slice(4), value: found });
        return found;
      },
    });
    return { value, references, values, commands, placeholders };
  }

  forget(commands: Expanded["commands"]): void {
    for (const command of commands) this.commands.forget(command);
  }

  /** The values these references gave lately (the current one and those rotated away), to mask. */
  recentValues(references: readonly string[]): string[] {
    return references.flatMap((reference) => this.recent.get(reference as SecretReference) ?? []);
  }

  /**
   * At start: each file exists and may be used (a command runs at its first use: a secret manager's session may
   * not be open yet when the server starts, and a run costs time), each command is defined. Names where it was found.
   */
  check({ text, place }: { text: string; place: string }): void {
    for (const reference of referencesIn(text)) {
      if (reference.startsWith("cmd:")) {
        const name = reference.slice(4);
        if (!COMMAND_NAME.test(name) || !this.commands.has(name)) {
          const known = this.commands.names();
          throw new UserError({
            code: "E_SECRET",
            message: `${place}: \${${reference}} names no credential process (the settings file's secrets: ${known.join(", ") || "none"})`,
          });
        }
        continue;
      }
      try {
        this.files.check(reference.slice(5));
      } catch (error) {
        if (!(error instanceof SecretUnavailable)) throw error;
        throw new UserError({ code: "E_SECRET", message: `${place}: ${error.message}` });
      }
    }
  }

  private async resolve(reference: SecretReference): Promise<string> {
    const value = reference.startsWith("cmd:")
      ? await this.commands.value(reference.slice(4))
      : await this.files.read(reference.slice(5));
    const seen = this.recent.get(reference) ?? [];
    if (seen.at(-1) !== value)
      this.recent.set(reference, [...seen.filter((v) => v !== value), value].slice(-REMEMBERED));
    return value;
  }
}
