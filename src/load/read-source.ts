// Reading a source's text from a file or an https:// URL. Plain http is refused except for loopback hosts (or
// with the explicit opt-out), at the first request and at every redirect hop.

import { readFile } from "node:fs/promises";
import { resolve as resolvePath } from "node:path";
import { STATUS_CODES } from "node:http";
import { messageOf, UserError } from "../catalog/errors.js";
import { isAllowedScheme, isUrl } from "../catalog/url.js";
import { noteRead, readBefore } from "./recorded-reads.js";
import type { SourceText } from "./source-text.js";

export interface ReadOptions {
  allowInsecureHttp?: boolean;
  /** Directory relative paths are resolved against (a manifest's directory); the working directory if unset. */
  baseDir?: string;
  /** Milliseconds for a whole download. */
  timeoutMs?: number;
}

const MAX_SOURCE_BYTES = 256 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export async function readSource(source: string, options: ReadOptions = {}): Promise<SourceText> {
  const location = isUrl(source) ? source : resolvePath(options.baseDir ?? process.cwd(), source);
  // Read already by the catalog cache, to find its entry (reads.ts).
  const given = readBefore(location);
  if (given) return { ...given, display: source };
  const read = isUrl(source) ? await fetchSource(source, options) : await readLocal({ source, location });
  noteRead({ location, remote: read.remote, bytes: read.bytes });
  return read;
}

async function readLocal({ source, location }: { source: string; location: string }): Promise<SourceText> {
  try {
    return { bytes: await readFile(location), location, remote: false, display: source };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT"
        ? `no such file (looked for ${location}; a relative path is read from the current directory)`
        : code === "EISDIR"
          ? "is a directory, not a file: name the OpenAPI document, action definition or manifest in it"
          : code === "EACCES"
            ? "permission denied"
            : messageOf(error);
    throw new UserError({ code: "E_SOURCE", message: `${source}: cannot read: ${reason}` });
  }
}

async function fetchSource(source: string, options: ReadOptions): Promise<SourceText> {
  const { request } = await import("undici");
  let url = parseUrl(source);
  const signal = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  for (let hop = 0; ; hop++) {
    if (!isAllowedScheme(url, options.allowInsecureHttp === true)) {
      const why = hop === 0 ? "" : ` (redirected from ${source})`;
      throw new UserError({
        code: "E_HTTPS_REQUIRED",
        message: `${url.href}${why}: only https:// sources are fetched (http:// only from loopback hosts, or with --allow-insecure-http)`,
      });
    }
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: "GET",
        signal,
        headers: { accept: "application/json, application/yaml, text/yaml, */*;q=0.5" },
      });
    } catch (error) {
      throw new UserError({ code: "E_FETCH", message: `[GET] "${url.href}": ${messageOf(error)}` });
    }
    const { statusCode, headers, body } = response;
    if (statusCode >= 300 && statusCode < 400 && typeof headers.location === "string") {
      await body.dump();
      if (hop >= MAX_REDIRECTS)
        throw new UserError({ code: "E_FETCH", message: `[GET] "${source}": more than ${MAX_REDIRECTS} redirects` });
      url = new URL(headers.location, url);
      continue;
    }
    if (statusCode < 200 || statusCode >= 300) {
      await body.dump();
      throw new UserError({
        code: "E_FETCH",
        message: `[GET] "${url.href}": ${statusCode} ${STATUS_CODES[statusCode] ?? ""}`.trim(),
      });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > MAX_SOURCE_BYTES) {
        body.destroy();
        throw new UserError({
          code: "E_FETCH",
          message: `[GET] "${url.href}": larger than ${MAX_SOURCE_BYTES / 1024 / 1024} MB`,
        });
      }
      chunks.push(chunk as Buffer);
    }
    return { bytes: Buffer.concat(chunks), location: url.href, remote: true, display: source };
  }
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new UserError({ code: "E_SOURCE", message: `${text}: not a valid URL` });
  }
}
