// The server variables given for a load (--server-var, settings `serverVariables`), each with where it was set, and
// which of them a document used: filled in by the normalizer (normalizer.ts), read by the servers' step (servers.ts).

/** Values set by the user, each with where it was set (for messages), and the names a chosen server used. */
export interface ServerVariableInput {
  values: Map<string, { value: string; place: string }>;
  used: Set<string>;
}
