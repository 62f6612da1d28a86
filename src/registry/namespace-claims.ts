// Which of a registry's new texts may take their namespace (`pets.0.yaml` and `pets.yaml` both take `pets`). The
// source already published keeps it, with its tools, credentials and the policies naming them; a newcomer taking
// it is refused, naming both files. When none holds it, newcomers that clash are all refused: at start nothing
// tells which file the operator meant, and any tie-break a console admin can sway (the name, the time written) is
// how `pets.0.yaml` took the real source's key.

import { namespaceClash, namespaceKey, namespaceOf } from "../load/namespaces.js";

/** Of `candidates` (texts new or changed, checked), those refused, each with the message naming the other file. */
export function refusedClaims({
  held,
  candidates,
}: {
  /** Names whose text is published and stays (those removed left out). */
  held: Iterable<string>;
  candidates: string[];
}): Map<string, string> {
  const keyOf = (name: string): string => namespaceKey(namespaceOf(name));
  const holders = new Map<string, string>();
  for (const name of held) holders.set(keyOf(name), name);
  const contenders = new Map<string, string[]>();
  for (const name of candidates) contenders.set(keyOf(name), [...(contenders.get(keyOf(name)) ?? []), name]);
  const refused = new Map<string, string>();
  for (const name of candidates) {
    const holder = holders.get(keyOf(name));
    if (holder === name) continue;
    if (holder !== undefined) {
      refused.set(name, namespaceClash({ source: name, other: holder, held: true }));
      continue;
    }
    const rival = contenders.get(keyOf(name))!.find((other) => other !== name);
    if (rival !== undefined) refused.set(name, namespaceClash({ source: name, other: rival, held: false }));
  }
  return refused;
}
