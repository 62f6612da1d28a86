// Counts in messages: "1 tool", "2 tools", "0 tools". Every English noun this project counts takes an "s".

/** The ending of a noun counted `count` times: "" for exactly one, "s" otherwise. */
export function plural(count: number): string {
  return count === 1 ? "" : "s";
}
