// The operations the local GitHub answers from its world (github-world.mjs) rather than from templates alone: the
// authenticated user's repositories, a repository, its issues (filtered by state, labels and since, sorted), one
// issue, creating and updating one, its comments, pull requests, an organization's members and a user. GitHub's
// rules where the tasks meet them: issues lists include pull requests; the default state is open, the default
// order newest created first; a repository's open_issues_count counts both.

import { Rng } from "./github-values.mjs";
import { ORG, OWNER } from "./github-world.mjs";
import { page } from "./github-generic.mjs";

const NOT_FOUND = { status: 404, json: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } };

export function worldRoutes(world) {
  /** The repository the request names, or undefined (then the answer is 404). */
  const repoOf = ({ params }) => ([OWNER, ORG].includes(params.owner) ? world.repo(params.repo) : undefined);
  const issueOf = (request, repo) => world.issuesOf(repo).find((i) => i.number === Number(request.params.issue_number));
  const withRepo = (handler) => (request) => {
    const repo = repoOf(request);
    return repo ? handler(request, repo) : NOT_FOUND;
  };
  const withIssue = (handler) =>
    withRepo((request, repo) => {
      const issue = issueOf(request, repo);
      return issue ? handler(request, repo, issue) : NOT_FOUND;
    });
  const listRepos = ({ query }) => {
    const sort = query.get("sort") ?? "full_name";
    const key = { created: "created", updated: "pushed", pushed: "pushed" }[sort];
    const direction = query.get("direction") ?? (sort === "full_name" ? "asc" : "desc");
    const sorted = [...world.repos].sort((a, b) => (key ? a[key] - b[key] : a.name.localeCompare(b.name)));
    if (direction === "desc") sorted.reverse();
    return { status: 200, ...page({ items: sorted.map((repo) => world.repoJson(repo)), query }) };
  };

  return {
    "repos_list-for-authenticated-user": listRepos,
    "repos_list-for-user": (request) => (request.params.username === OWNER ? listRepos(request) : NOT_FOUND),
    repos_get: withRepo((_, repo) => ({ status: 200, json: world.repoJson(repo, { full: true }) })),
    "issues_list-for-repo": withRepo(({ query }, repo) => {
      const state = query.get("state") ?? "open";
      const labels = (query.get("labels") ?? "").split(",").filter(Boolean);
      const since = query.get("since") ? Date.parse(query.get("since")) : 0;
      const key = { created: "created", updated: "updated", comments: "comments" }[query.get("sort") ?? "created"];
      const chosen = world
        .issuesOf(repo)
        .filter((i) => state === "all" || i.state === state)
        .filter((i) => labels.every((name) => i.labels.includes(name)) && i.updated >= since)
        .sort((a, b) => b[key] - a[key] || b.number - a.number);
      if (query.get("direction") === "asc") chosen.reverse();
      return { status: 200, ...page({ items: chosen.map((issue) => world.issueJson(repo, issue)), query }) };
    }),
    issues_get: withIssue((_, repo, issue) => ({ status: 200, json: world.issueJson(repo, issue) })),
    issues_create: withRepo(({ body }, repo) => ({
      status: 201,
      json: world.issueJson(repo, world.createIssue(repo, body)),
    })),
    issues_update: withIssue(({ body }, repo, issue) => {
      if (body.state) issue.state = body.state;
      if (body.state === "closed") issue.closed = issue.updated;
      if (body.title) issue.title = body.title;
      if (Array.isArray(body.labels)) issue.labels = body.labels.map((l) => (typeof l === "string" ? l : l.name));
      return { status: 200, json: world.issueJson(repo, issue) };
    }),
    "issues_list-comments": withIssue(({ query }, repo, issue) => ({
      status: 200,
      ...page({ items: world.commentsOf(repo, issue).map((c) => world.commentJson(repo, issue, c)), query }),
    })),
    "issues_create-comment": withIssue(({ body }, repo, issue) => ({
      status: 201,
      json: world.commentJson(repo, issue, world.addComment(repo, issue, body.body)),
    })),
    pulls_list: withRepo(({ query }, repo) => {
      const state = query.get("state") ?? "open";
      const pulls = world.issuesOf(repo).filter((i) => i.pull && (state === "all" || i.state === state));
      return { status: 200, ...page({ items: pulls.map((issue) => world.pullJson(repo, issue)), query }) };
    }),
    "orgs_list-members": ({ params, query }) =>
      params.org === ORG
        ? { status: 200, ...page({ items: world.members.map((login) => world.user(login)), query }) }
        : NOT_FOUND,
    "users_get-by-username": ({ params }) => {
      if (params.username !== OWNER && !world.members.includes(params.username)) return NOT_FOUND;
      const rng = new Rng(world.seed, `user:${params.username}`);
      const user = world.rewrite(world.template("users_get-by-username"), { octocat: params.username });
      return { status: 200, json: { ...user, followers: rng.int(0, 5000), public_repos: rng.int(0, 80) } };
    },
    "repos_list-languages": withRepo((_, repo) => {
      const rng = new Rng(world.seed, `languages:${repo.name}`);
      return { status: 200, json: { [repo.language]: rng.int(50_000, 900_000), Shell: rng.int(100, 9_000) } };
    }),
  };
}
