// Optional options stay absent rather than `undefined` (exactOptionalPropertyTypes): one helper, light enough for the
// command line to import before it knows which command runs.

/** The entries whose values are defined. */
export function defined<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
