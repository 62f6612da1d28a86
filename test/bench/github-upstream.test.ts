// The local GitHub the code-mode token bench runs against (bench/github-upstream.mjs): what a bench reader would
// check of it. Its responses pass the project's own output validation, have GitHub's real sizes, come out the same
// for the same seed, paginate like GitHub, and hold together (a listed repository exists; an issue created is listed).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Validator } from "../../src/runtime/checks/validate.js";
import { type GithubUpstream, startGithubUpstream } from "../../bench/github-upstream.mjs";

/**
 * Operations whose response no value can satisfy as the validator reads the spec: the events' `payload` is a
 * `oneOf` whose branches overlap (a real event matches two), and the codespaces/copilot ones nest a recursive
 * schema deeper than the generator goes. Everything else must conform.
 */
const KNOWN_UNSATISFIABLE = /^(activity_list-.*events.*|codespaces_.*|copilot_list-copilot-seats)$/;

let upstream: GithubUpstream;
beforeAll(async () => {
  upstream = await startGithubUpstream({ seed: 7 });
});
afterAll(() => upstream.close());

/** The repository with the most issues: the one the checks of issue lists use. */
const busiest = () => [...upstream.world.repos].sort((a, b) => b.issueCount - a.issueCount)[0]!.name;

const get = async (path: string) => {
  const response = await fetch(`${upstream.url}${path}`);
  const text = await response.text();
  return { status: response.status, link: response.headers.get("link"), text, json: text ? JSON.parse(text) : null };
};

describe("the local GitHub upstream", () => {
  it("answers every GET operation of GitHub's spec with JSON the project's validator accepts", async () => {
    const repo = upstream.world.repos[0]!.name;
    const values: Record<string, string> = { owner: "octocat", repo, org: "octo-org", username: "octocat" };
    const gets = upstream.catalog.tools.filter((tool) => tool.operation.method === "GET");
    for (const tool of gets) {
      const path = tool.operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? "1");
      const { status } = await get(path);
      expect(status, tool.name).toBeLessThan(500);
    }
    const refused = upstream.invalid.filter((entry) => !KNOWN_UNSATISFIABLE.test(entry.tool));
    expect(refused).toEqual([]);
    expect(upstream.served).toBeGreaterThan(600);
    expect(upstream.invalid.length).toBeLessThanOrEqual(15);
  }, 60_000);

  it("checks independently: a list and an issue validate against the catalog's output schemas", async () => {
    const validator = new Validator({ definitions: upstream.catalog.definitions });
    const tool = (name: string) => upstream.catalog.tools.find((t) => t.name === name)!;
    const repos = await get("/user/repos?per_page=5");
    expect(validator.output(tool("repos_list-for-authenticated-user"), { result: repos.json })).toEqual([]);
    const issues = await get(`/repos/octocat/${busiest()}/issues?per_page=3&state=all`);
    expect(issues.json.length).toBeGreaterThan(0);
    expect(validator.output(tool("issues_get"), issues.json[0])).toEqual([]);
  });

  it("sizes responses like GitHub: a repository in a list is kilobytes, a page of 30 issues a hundred or more", async () => {
    const repos = await get("/user/repos");
    expect(repos.text.length / repos.json.length).toBeGreaterThan(4_000);
    const issues = await get(`/repos/octocat/${busiest()}/issues?state=all`);
    expect(issues.json).toHaveLength(30);
    expect(issues.text.length).toBeGreaterThan(100_000);
  });

  it("gives the same bytes for the same seed and other bytes for another", async () => {
    const again = await startGithubUpstream({ seed: 7 });
    const other = await startGithubUpstream({ seed: 8 });
    try {
      for (const path of [
        "/user/repos?page=2",
        `/repos/octocat/${busiest()}/issues`,
        "/repos/octocat/atlas-api/releases",
      ]) {
        const a = await get(path);
        const b = await (await fetch(`${again.url}${path}`)).text();
        const c = await (await fetch(`${other.url}${path}`)).text();
        expect(b).toBe(a.text);
        if (!path.includes("releases")) expect(c).not.toBe(a.text);
      }
    } finally {
      await Promise.all([again.close(), other.close()]);
    }
  });

  it("paginates with per_page, page and Link headers, and every listed repository exists with its counts", async () => {
    const first = await get("/user/repos?per_page=10");
    expect(first.link).toMatch(/[?&]page=2>; rel="next"/);
    const all: Array<{ name: string; open_issues_count: number }> = [];
    for (let page = 1; ; page++) {
      const { json, link } = await get(`/user/repos?per_page=10&page=${page}`);
      all.push(...json);
      if (!link?.includes('rel="next"')) break;
    }
    expect(all).toHaveLength(upstream.world.repos.length);
    for (const repo of all.slice(0, 6)) {
      const fetched = await get(`/repos/octocat/${repo.name}`);
      expect(fetched.json.full_name).toBe(`octocat/${repo.name}`);
      expect(fetched.json.open_issues_count).toBe(repo.open_issues_count);
      const open = await get(`/repos/octocat/${repo.name}/issues?per_page=100`);
      expect(open.json).toHaveLength(repo.open_issues_count);
    }
    expect((await get("/repos/octocat/no-such-repo")).status).toBe(404);
  });

  it("issues carry labels and created_at; labels filter; an issue created is listed and fetched", async () => {
    const repo = busiest();
    const bugs = await get(`/repos/octocat/${repo}/issues?labels=bug&state=all&per_page=100`);
    expect(bugs.json.length).toBeGreaterThan(0);
    for (const issue of bugs.json) {
      expect(issue.labels.map((l: { name: string }) => l.name)).toContain("bug");
      expect(Date.parse(issue.created_at)).toBeGreaterThan(0);
    }
    const created = await fetch(`${upstream.url}/repos/octocat/${repo}/issues`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Flaky test", labels: ["bug"] }),
    });
    expect(created.status).toBe(201);
    const issue = (await created.json()) as { number: number };
    const listed = await get(`/repos/octocat/${repo}/issues?labels=bug&per_page=1`);
    expect(listed.json[0]).toMatchObject({ number: issue.number, title: "Flaky test", state: "open" });
    expect((await get(`/repos/octocat/${repo}/issues/${issue.number}`)).json.title).toBe("Flaky test");
  });
});
