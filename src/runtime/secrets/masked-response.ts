// An upstream response as the model may see it: its body masked as bytes (whatever charset they are in) and, where
// the charset could hide a form from that (UTF-16 and the like), as the text it decodes to; only then cut to the
// limit. The body was read past the limit by 16 times the longest secret (the lookahead), so a form that straddles
// the limit is seen and masked whole; the cut itself is at the limit whatever ends there. Past limit + lookahead
// nothing was read: that margin is what a form across the limit has to be complete in, and its size depends on the
// secrets' lengths alone, never on what the body holds.

import { mediaTypeParameters } from "../../catalog/media-type.js";
import type { UpstreamResponse } from "../http/client.js";
import { decode } from "../http/response.js";
import type { Masker } from "./secrets.js";

/** Charsets whose ASCII characters are single bytes of the same value: masking the bytes masks the text too. */
const ASCII_BYTES = /^(?:utf-?8|(?:us-)?ascii|iso-8859-\d+|latin1|windows-125\d)$/i;

export function maskResponse({
  response,
  masker,
  maxBytes,
}: {
  response: UpstreamResponse;
  masker: Masker;
  maxBytes: number;
}): UpstreamResponse {
  if (!masker.active) return response;
  const raw = response.body;
  const cut = response.truncated || raw.length > maxBytes;
  const body = masker.maskedBytePrefix({ bytes: raw, length: cut ? maxBytes : raw.length });
  const contentType = response.headers["content-type"] ?? "";
  const charset = mediaTypeParameters(contentType).charset ?? "utf-8";
  let text: string | undefined;
  return {
    ...response,
    body,
    truncated: cut,
    limit: maxBytes,
    // Decoded and masked when something reads the body as text.
    get text(): string {
      if (text !== undefined) return text;
      if (masker.asciiSecrets && ASCII_BYTES.test(charset)) text = decode(body, contentType);
      else {
        const decoded = decode(raw, contentType);
        text = masker.maskedPrefix({
          text: decoded,
          chars: cut ? charsIn({ bytes: raw.subarray(0, maxBytes), decoded, contentType }) : decoded.length,
        });
      }
      return text;
    },
  };
}

/** How many characters of `decoded` the first bytes of the body hold (a character cut in two is not one of them). */
function charsIn({ bytes, decoded, contentType }: { bytes: Buffer; decoded: string; contentType: string }): number {
  const prefix = decode(bytes, contentType);
  const last = prefix.length - 1;
  return last >= 0 && prefix[last] === "\uFFFD" && decoded[last] !== "\uFFFD" ? last : prefix.length;
}
