// A source as read: where it came from (kept after its text is released) and its bytes. Shared by the reader
// (read-source.ts), the record of what a load read (recorded-reads.ts), the cache and the loader.

/** Where a source came from; kept after its text is released. */
export interface SourceOrigin {
  /** Absolute file path or URL: where relative references resolve from. */
  location: string;
  remote: boolean;
  /** As the user wrote it, for messages. */
  display: string;
  /** Whether the text has a `$ref` that may not be local (see external-refs.ts). */
  mayHaveExternalRefs?: boolean;
  /** Set for a large document: tells what its loading is doing. */
  narrate?: (line: string) => void;
}

export interface SourceText extends SourceOrigin {
  bytes: Buffer;
}
