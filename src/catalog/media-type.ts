// Media types as the spec states them ("application/vnd.api+json; charset=utf-8", "*/*"), classified by how a
// body of that type is built. Parsed by structure, never by substring.

import type { BodyKind } from "./types.js";

export interface MediaType {
  type: string;
  subtype: string;
  /** The structured-syntax suffix: "json" for `application/problem+json`. */
  suffix?: string;
}

/** The essence of a media type, lower-cased, without parameters; undefined if it is not `type/subtype`. */
export function parseMediaType(text: string): MediaType | undefined {
  const essence = text.split(";", 1)[0]!.trim().toLowerCase();
  const match = /^([a-z0-9!#$&^_.+*-]+)\/([a-z0-9!#$&^_.+*-]+)$/.exec(essence);
  if (!match) return undefined;
  const subtype = match[2]!;
  const plus = subtype.lastIndexOf("+");
  return { type: match[1]!, subtype, ...(plus > 0 ? { suffix: subtype.slice(plus + 1) } : {}) };
}

/** The parameters of a media type (`charset=utf-8`), names lower-cased, quoted values unquoted. */
export function mediaTypeParameters(text: string): Record<string, string> {
  const parameters: Record<string, string> = {};
  const rest = text.slice(text.indexOf(";") + 1 || text.length);
  for (const match of rest.matchAll(/\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)\s*;?/g)) {
    const value = match[2]!.trim();
    parameters[match[1]!.toLowerCase()] = value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value;
  }
  return parameters;
}

export function isJsonMediaType(text: string): boolean {
  const media = parseMediaType(text);
  if (!media) return false;
  return media.subtype === "json" || media.suffix === "json" || (media.type === "text" && media.subtype === "json");
}

/** How a request body of this media type is built from the tool's arguments. */
export function bodyKind(text: string): BodyKind {
  const media = parseMediaType(text);
  if (!media) return "binary";
  if (isJsonMediaType(text)) return "json";
  if (media.type === "application" && media.subtype === "x-www-form-urlencoded") return "form";
  if (media.type === "multipart") return "multipart";
  if (media.type === "text" || media.subtype === "xml" || media.suffix === "xml") return "text";
  return "binary";
}

const KIND_PREFERENCE: BodyKind[] = ["json", "form", "multipart", "text", "binary"];

/** The media type to use when several are offered: JSON first, then forms, text, binary; first listed wins ties. */
export function preferredMediaType<T extends { mediaType: string }>(offers: T[]): T | undefined {
  let best: T | undefined;
  let bestRank = Number.POSITIVE_INFINITY;
  for (const offer of offers) {
    const rank = KIND_PREFERENCE.indexOf(bodyKind(offer.mediaType));
    if (rank < bestRank) {
      best = offer;
      bestRank = rank;
    }
  }
  return best;
}
