// The README and the pages of docs/ link to one another by file and heading: every link that stays in the
// repository must reach a file that exists and, with a #fragment, a heading of that page (GitHub's anchors), so a
// page moved or a heading renamed cannot leave a reader at a dead end.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPOSITORY } from "../support/generated.js";

/** The Markdown a reader navigates: the README, every page under docs/, the benchmarks' README. */
function pages(): string[] {
  const docs = readdirSync(join(REPOSITORY, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => join(REPOSITORY, "docs", file));
  return [join(REPOSITORY, "README.md"), join(REPOSITORY, "bench/README.md"), ...docs];
}

/** The text outside fenced code blocks, where a link is a link. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, "");

/** GitHub's anchor of each heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`, repeats numbered. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(readFileSync(file, "utf8")).matchAll(/^#{1,6} (.*)$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replaceAll(" ", "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

/** Each link of a page that stays in the repository: its target and where it points from. */
function links(file: string): Array<{ target: string; from: string }> {
  const text = prose(readFileSync(file, "utf8")).replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => ({ target, from: relative(REPOSITORY, file) }));
}

describe("links between the README and docs/", () => {
  it("each reaches a file that exists, and a heading there when it names one", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of pages()) {
      for (const { target, from } of links(file)) {
        checked++;
        const [path, fragment] = target.split("#");
        const destination = path ? join(dirname(file), decodeURIComponent(path)) : file;
        if (!existsSync(destination)) broken.push(`${from}: ${target} (no such file)`);
        else if (fragment && destination.endsWith(".md") && !anchors(destination).has(fragment))
          broken.push(`${from}: ${target} (no such heading)`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });
});
