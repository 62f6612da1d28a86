// External `$ref`s. By default only files beside a local spec (in its directory or below) are read; a spec
// fetched from a URL never reads local files, and no URL is fetched unless the user allows its prefix. Left to
// itself, swagger-parser would inline `/etc/passwd` or a cloud metadata URL into a tool description.

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve as resolvePath } from "node:path";
import { messageOf, UserError } from "../catalog/errors.js";
import { isObject, joinPointer } from "../catalog/pointer.js";
import { isAllowedScheme, isUrl } from "../catalog/url.js";
import { type Confinement, confinedProblem, isInside } from "./confined.js";
import { parseText, refuseTooDeep } from "./parse.js";
import type { SourceOrigin } from "./source-text.js";
import { readSource } from "./read-source.js";
import { noteRead } from "./recorded-reads.js";

export interface RefPolicy {
  /** Directories files may be read from (the spec's own, plus any the user allowed). */
  directories: string[];
  /** URL prefixes that may be fetched. */
  urlPrefixes: string[];
  allowInsecureHttp: boolean;
  /** A registry's source or a draft: only files inside the registry directory, whatever else is allowed. */
  confined?: Confinement;
}

export function refPolicy({
  source,
  allowRefs = [],
  allowInsecureHttp = false,
  confined,
}: {
  source: SourceOrigin;
  allowRefs?: string[];
  allowInsecureHttp?: boolean;
  confined?: Confinement;
}): RefPolicy {
  if (confined) return { directories: [], urlPrefixes: [], allowInsecureHttp, confined };
  const urlPrefixes = allowRefs.filter((entry) => isUrl(entry));
  // A spec fetched from a URL never reads local files, whatever else is allowed.
  const directories = source.remote
    ? []
    : [dirname(source.location), ...allowRefs.filter((entry) => !isUrl(entry)).map((dir) => resolvePath(dir))];
  return { directories, urlPrefixes, allowInsecureHttp };
}

/** Cheap test on the bytes, so a 50 MB document is walked only when some `$ref` may not be local ("#…"). */
export function mayHaveExternalRefs(bytes: Buffer): boolean {
  const skipped = new Set([0x20, 0x09, 0x0d, 0x0a, 0x22, 0x27, 0x3a]); // blanks, quotes and the colon
  for (let at = bytes.indexOf("$ref"); at >= 0; at = bytes.indexOf("$ref", at + 4)) {
    let i = at + 4;
    while (i < bytes.length && skipped.has(bytes[i]!)) i++;
    if (bytes[i] !== 0x23) return true; // not "#"
  }
  return false;
}

export async function bundleExternalRefs({
  value,
  source,
  policy,
}: {
  value: unknown;
  source: SourceOrigin;
  policy: RefPolicy;
}): Promise<unknown> {
  if (!source.mayHaveExternalRefs) return value;
  const external = findExternalRefs(value);
  if (external.length === 0) return value;
  const refused: string[] = [];
  for (const { ref, pointer } of external) {
    const problem = checkTarget(resolveTarget(ref, source.location), policy);
    if (problem) refused.push(`  #${pointer}: $ref '${ref}' ${problem}`);
  }
  if (refused.length > 0) {
    throw new UserError({
      code: "E_REF_NOT_ALLOWED",
      message: `${source.display}: external references that are not allowed:\n${refused.slice(0, 10).join("\n")}${refused.length > 10 ? `\n  … and ${refused.length - 10} more` : ""}\n${allowRule({ source, policy })}`,
    });
  }
  // swagger-parser's own ref engine, without swagger-parser's rewriting of relative server URLs (which drops the
  // port); the normalizer resolves server URLs itself.
  const { default: $RefParser } = await import("@apidevtools/json-schema-ref-parser");
  let bundled: unknown;
  try {
    bundled = await $RefParser.bundle(
      source.location,
      value as never,
      {
        resolve: {
          file: false,
          http: false,
          guarded: { order: 1, canRead: true, read: (file: { url: string }) => readGuarded(file.url, policy) },
        },
        parse: {
          json: false,
          yaml: false,
          text: false,
          binary: false,
          document: {
            order: 1,
            canParse: true,
            parse: (file: { url: string; data: Buffer | string }) =>
              parseText({ text: file.data.toString(), file: file.url }),
          },
        },
      } as never,
    );
  } catch (error) {
    if (error instanceof UserError) throw error;
    // The bundler recurses through each file and each reference it follows.
    if (error instanceof RangeError)
      throw new UserError({
        code: "E_TOO_DEEP",
        message: `${source.display}: its external $refs nest too deeply to be bundled`,
      });
    throw new UserError({
      code: "E_REF",
      message: `${source.display}: an external $ref could not be resolved: ${messageOf(error)}`,
    });
  }
  // Each file was within the depth limit; one inlined into another may not be.
  refuseTooDeep({ value: bundled, file: source.display });
  return bundled;
}

function findExternalRefs(root: unknown): Array<{ ref: string; pointer: string }> {
  const found: Array<{ ref: string; pointer: string }> = [];
  const stack: Array<{ value: unknown; pointer: string }> = [{ value: root, pointer: "" }];
  while (stack.length > 0) {
    const { value, pointer } = stack.pop()!;
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) stack.push({ value: item, pointer: joinPointer(pointer, i) });
    } else if (isObject(value)) {
      if (typeof value.$ref === "string" && !value.$ref.startsWith("#")) found.push({ ref: value.$ref, pointer });
      for (const [key, item] of Object.entries(value))
        if (item !== null && typeof item === "object") stack.push({ value: item, pointer: joinPointer(pointer, key) });
    }
  }
  return found.sort((a, b) => (a.pointer < b.pointer ? -1 : 1));
}

function resolveTarget(ref: string, base: string): string {
  const withoutFragment = ref.split("#", 1)[0]!;
  if (isUrl(withoutFragment)) return withoutFragment;
  if (isUrl(base)) return new URL(withoutFragment, base).href;
  return resolvePath(dirname(base), decodeURIComponent(withoutFragment));
}

/** Why a target may not be read, or undefined when it may. */
function checkTarget(target: string, policy: RefPolicy): string | undefined {
  if (policy.confined) return confinedProblem({ target, confined: policy.confined });
  if (isUrl(target)) {
    const url = new URL(target);
    if (url.protocol === "file:") return "is a file: URL; files are read only as relative paths";
    if (!isAllowedScheme(url, policy.allowInsecureHttp)) return "is not https";
    if (!policy.urlPrefixes.some((prefix) => target.startsWith(prefix)))
      return "is a URL; URLs are fetched only under prefixes given with --allow-ref";
    return undefined;
  }
  if (policy.directories.length === 0) return "is a local file, and a spec fetched from a URL never reads local files";
  // Where it is first, then whether it is there: a path outside is refused without telling whether it exists.
  if (!policy.directories.some((dir) => isInside({ path: target, dir }))) return "is outside the spec's directory";
  return existsSync(target) ? undefined : `names ${target}, which does not exist`;
}

async function readGuarded(target: string, policy: RefPolicy): Promise<string> {
  const problem = checkTarget(target, policy);
  if (problem) throw new UserError({ code: "E_REF_NOT_ALLOWED", message: `$ref to '${target}' ${problem}` });
  if (isUrl(target))
    return (await readSource(target, { allowInsecureHttp: policy.allowInsecureHttp })).bytes.toString("utf8");
  const bytes = await readFile(target);
  noteRead({ location: target, remote: false, bytes });
  return bytes.toString("utf8");
}

function allowRule({ source, policy }: { source: SourceOrigin; policy: RefPolicy }): string {
  if (policy.confined)
    return "A registry source (and a console draft) reads only files inside the registry directory; --allow-ref does not widen that.";
  return source.remote
    ? "A spec fetched from a URL resolves no external $ref unless its URL prefix is allowed with --allow-ref <url-prefix>."
    : "Only files in the spec's directory (or below) are resolved; allow more with --allow-ref <dir|url-prefix>.";
}
