// The code-mode token bench (bench/code-mode.mjs) compares modes only if they do the same work: a few of its tasks,
// run by the same reference agent in tools, dynamic and code mode against `serve` and the local GitHub, must send
// the upstream the same writes (in order) and reads, and come to the same answer. Token counts are the bench's.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Run, runTasks } from "../../bench/code-mode-run.mjs";
import { TASKS } from "../../bench/code-mode-tasks.mjs";
import { type GithubUpstream, startGithubUpstream } from "../../bench/github-upstream.mjs";

/** A read-only list-then-detail task, a create-then-verify and a bulk write. */
const IDS = ["busiest-bugs", "create-then-verify", "close-wontfix"];
const MODES = ["tools", "dynamic", "code"];

let upstream: GithubUpstream;
let result: Awaited<ReturnType<typeof runTasks>>;
beforeAll(async () => {
  upstream = await startGithubUpstream({ seed: 1 });
  const tasks = TASKS.filter((task) => IDS.includes(task.id));
  result = await runTasks({ modes: MODES, tasks, upstream });
}, 180_000);
afterAll(() => upstream?.close());

const runsOf = (id: string): Run[] => result.runs.filter((run) => run.task === id);

describe("the code-mode bench's tasks in tools, dynamic and code mode", () => {
  it("runs every task in every mode, each search listing the tools the plan uses", () => {
    expect(result.skipped).toEqual({});
    expect(result.notes).toEqual([]);
    for (const id of IDS) expect(runsOf(id).map((run) => run.mode)).toEqual(MODES);
  });

  it.each(IDS)("%s: the same writes, in the same order, and the same reads reach the upstream", (id) => {
    const [tools, ...others] = runsOf(id);
    expect(tools!.effects.reads.length).toBeGreaterThan(0);
    for (const run of others) {
      expect(run.effects.writes, run.mode).toEqual(tools!.effects.writes);
      expect([...run.effects.reads].sort(), run.mode).toEqual([...tools!.effects.reads].sort());
    }
  });

  it.each(IDS)("%s: the script's answer in code mode is the one the other modes compute", (id) => {
    const answers = runsOf(id).map((run) => run.answer);
    expect(answers[0]).toBeTruthy();
    expect(new Set(answers).size).toBe(1);
  });

  it("the writes are real: an issue created once, every wontfix issue closed, none left", () => {
    const [created] = runsOf("create-then-verify").map((run) => run.effects.writes);
    expect(created).toEqual([
      'POST /repos/octocat/delta-cli/issues {"labels":["bug"],"title":"Crash on empty config"}',
    ]);
    expect(JSON.parse(runsOf("create-then-verify")[2]!.answer)).toMatchObject({ listed: true });
    const closing = runsOf("close-wontfix")[2]!;
    const answer = JSON.parse(closing.answer) as { closed: number[]; left: number };
    expect(answer.closed.length).toBeGreaterThan(0);
    expect(answer.left).toBe(0);
    expect(closing.effects.writes).toHaveLength(answer.closed.length);
    for (const write of closing.effects.writes)
      expect(write).toMatch(/^PATCH \/repos\/octocat\/harbor-cli\/issues\/\d+ /);
  });
});
