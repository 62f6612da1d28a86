// The code-mode bench's tasks: multi-step work on GitHub as a user would ask it, each with its reference plan,
// written once. `plan` is the calls a competent agent makes, as the body of an async function over
// `api["<tool>"](args)` (each call resolves to the response body; a failed call throws). Code mode runs it as the
// `execute` script; tools and dynamic mode make the same calls one tool call per round trip, in the same order,
// reading every full response (bench/code-mode.mjs). `searches` are what the agent asks search_tools in dynamic and
// code mode (each must list the tools the plan uses), `tools` the ones it then describes. The data is the local
// GitHub's world for seed 1 (bench/github-world.mjs): octocat's 33 repositories and the octo-org organization.

export const TASKS = [
  {
    id: "busiest-bugs",
    kind: "list-then-detail",
    prompt: "For each of my three busiest repositories, list the open issues labelled bug and tell me the oldest.",
    searches: ["list my repositories", "list issues in a repository"],
    tools: ["repos_list-for-authenticated-user", "issues_list-for-repo"],
    plan: `const repos = await api["repos_list-for-authenticated-user"]({ per_page: 100 });
const busiest = repos.sort((a, b) => b.open_issues_count - a.open_issues_count).slice(0, 3);
const out = [];
for (const r of busiest) {
  const bugs = (await api["issues_list-for-repo"]({ owner: r.owner.login, repo: r.name, labels: "bug", state: "open", per_page: 100 }))
    .filter((i) => !i.pull_request);
  const oldest = bugs.reduce((a, b) => (a && a.created_at <= b.created_at ? a : b), undefined);
  out.push({ repo: r.name, bugs: bugs.map((i) => i.number), oldest: oldest && { number: oldest.number, title: oldest.title, created_at: oldest.created_at } });
}
return out;`,
  },
  {
    id: "issues-2025",
    kind: "paginate-and-count",
    prompt:
      "How many issues (not pull requests) were opened in octocat/iris-api during 2025, and how many are still open?",
    searches: ["list issues in a repository"],
    tools: ["issues_list-for-repo"],
    plan: `let all = [];
for (let page = 1; ; page++) {
  const batch = await api["issues_list-for-repo"]({ owner: "octocat", repo: "iris-api", state: "all", per_page: 100, page });
  all = all.concat(batch);
  if (batch.length < 100) break;
}
const in2025 = all.filter((i) => !i.pull_request && i.created_at.startsWith("2025"));
return { opened: in2025.length, stillOpen: in2025.filter((i) => i.state === "open").length };`,
  },
  {
    id: "label-census",
    kind: "paginate-and-aggregate",
    prompt: "Which labels are used most across all issues of octocat/ember-api, open and closed? Give counts.",
    searches: ["list issues in a repository"],
    tools: ["issues_list-for-repo"],
    plan: `const counts = {};
for (let page = 1; ; page++) {
  const batch = await api["issues_list-for-repo"]({ owner: "octocat", repo: "ember-api", state: "all", per_page: 100, page });
  for (const issue of batch) for (const label of issue.labels) counts[label.name] = (counts[label.name] || 0) + 1;
  if (batch.length < 100) break;
}
return Object.entries(counts).sort((a, b) => b[1] - a[1]);`,
  },
  {
    id: "stale-pulls",
    kind: "filter-and-aggregate",
    prompt: "Which open pull requests in octocat/granite-cli have not been updated since June 2026? Oldest first.",
    searches: ["list pull requests"],
    tools: ["pulls_list"],
    plan: `const pulls = await api["pulls_list"]({ owner: "octocat", repo: "granite-cli", state: "open", per_page: 100 });
return pulls.filter((p) => p.updated_at < "2026-06-01").sort((a, b) => (a.updated_at < b.updated_at ? -1 : 1))
  .map((p) => ({ number: p.number, title: p.title, updated_at: p.updated_at, author: p.user.login }));`,
  },
  {
    id: "pull-reviews",
    kind: "list-then-detail",
    prompt:
      "For each open pull request in octocat/fjord-api, how many reviews does it have, and which have none approved?",
    searches: ["list pull requests", "list reviews for a pull request"],
    tools: ["pulls_list", "pulls_list-reviews"],
    plan: `const pulls = await api["pulls_list"]({ owner: "octocat", repo: "fjord-api", state: "open", per_page: 100 });
const out = [];
for (const p of pulls) {
  const reviews = await api["pulls_list-reviews"]({ owner: "octocat", repo: "fjord-api", pull_number: p.number, per_page: 100 });
  out.push({ number: p.number, reviews: reviews.length, approved: reviews.some((r) => r.state === "APPROVED") });
}
return out;`,
  },
  {
    id: "top-contributors",
    kind: "list-then-detail",
    prompt: "Across my five most-starred repositories, who are the top three contributors by total contributions?",
    searches: ["list my repositories", "list repository contributors"],
    tools: ["repos_list-for-authenticated-user", "repos_list-contributors"],
    plan: `const repos = (await api["repos_list-for-authenticated-user"]({ per_page: 100 }))
  .sort((a, b) => b.stargazers_count - a.stargazers_count).slice(0, 5);
const totals = {};
for (const r of repos) {
  const people = await api["repos_list-contributors"]({ owner: r.owner.login, repo: r.name, per_page: 100 });
  for (const c of people) totals[c.login] = (totals[c.login] || 0) + c.contributions;
}
return Object.entries(totals).sort((a, b) => b[1] - a[1]).slice(0, 3);`,
  },
  {
    id: "latest-releases",
    kind: "list-then-detail",
    prompt:
      "What is the latest release of each of my five most recently pushed repositories, and when was it published?",
    searches: ["list my repositories", "get the latest release"],
    tools: ["repos_list-for-authenticated-user", "repos_get-latest-release"],
    plan: `const repos = await api["repos_list-for-authenticated-user"]({ sort: "pushed", per_page: 5 });
const out = [];
for (const r of repos) {
  const release = await api["repos_get-latest-release"]({ owner: r.owner.login, repo: r.name });
  out.push({ repo: r.name, tag: release.tag_name, published_at: release.published_at });
}
return out;`,
  },
  {
    id: "language-share",
    kind: "list-then-aggregate",
    prompt: "Across my ten most recently pushed repositories, what share of the code (in bytes) is each language?",
    searches: ["list my repositories", "list repository languages"],
    tools: ["repos_list-for-authenticated-user", "repos_list-languages"],
    plan: `const repos = await api["repos_list-for-authenticated-user"]({ sort: "pushed", per_page: 10 });
const bytes = {};
for (const r of repos) {
  const langs = await api["repos_list-languages"]({ owner: r.owner.login, repo: r.name });
  for (const [lang, n] of Object.entries(langs)) bytes[lang] = (bytes[lang] || 0) + n;
}
const total = Object.values(bytes).reduce((a, b) => a + b, 0);
return Object.entries(bytes).map(([lang, n]) => [lang, Math.round((n / total) * 1000) / 10]).sort((a, b) => b[1] - a[1]);`,
  },
  {
    id: "workflow-failures",
    kind: "filter-and-aggregate",
    prompt: "Of the last 100 workflow runs in octocat/beacon-web, how many failed, and on which branches?",
    searches: ["list workflow runs for a repository"],
    tools: ["actions_list-workflow-runs-for-repo"],
    plan: `const { workflow_runs: runs } = await api["actions_list-workflow-runs-for-repo"]({ owner: "octocat", repo: "beacon-web", per_page: 100 });
const failed = runs.filter((r) => r.conclusion === "failure");
const branches = {};
for (const r of failed) branches[r.head_branch] = (branches[r.head_branch] || 0) + 1;
return { runs: runs.length, failed: failed.length, branches };`,
  },
  {
    id: "member-followers",
    kind: "list-then-detail",
    prompt: "Among the first twenty members of the octo-org organization, who has the most followers?",
    searches: ["list organization members", "get a user"],
    tools: ["orgs_list-members", "users_get-by-username"],
    plan: `const members = await api["orgs_list-members"]({ org: "octo-org", per_page: 20 });
let best;
for (const m of members) {
  const user = await api["users_get-by-username"]({ username: m.login });
  if (!best || user.followers > best.followers) best = { login: user.login, followers: user.followers };
}
return best;`,
  },
  {
    id: "go-stars",
    kind: "filter-and-aggregate",
    prompt: "How many of my repositories are written in Go, and how many stars do they have together?",
    searches: ["list my repositories"],
    tools: ["repos_list-for-authenticated-user"],
    plan: `const repos = await api["repos_list-for-authenticated-user"]({ per_page: 100 });
const go = repos.filter((r) => r.language === "Go");
return { count: go.length, stars: go.reduce((n, r) => n + r.stargazers_count, 0), names: go.map((r) => r.name) };`,
  },
  {
    id: "create-then-verify",
    kind: "create-then-verify",
    prompt:
      "Open an issue in octocat/delta-cli titled 'Crash on empty config', labelled bug, then confirm it is listed among the open bugs.",
    searches: ["create an issue", "list issues in a repository"],
    tools: ["issues_create", "issues_list-for-repo"],
    plan: `const created = await api["issues_create"]({ owner: "octocat", repo: "delta-cli", body: { title: "Crash on empty config", labels: ["bug"] } });
const bugs = await api["issues_list-for-repo"]({ owner: "octocat", repo: "delta-cli", labels: "bug", state: "open", per_page: 100 });
return { number: created.number, listed: bugs.some((i) => i.number === created.number) };`,
  },
  {
    id: "comment-oldest-bug",
    kind: "create-then-verify",
    prompt:
      "Ask on the oldest open bug in octocat/atlas-sdk whether it still happens on the latest release, then show me its comments.",
    searches: ["list issues in a repository", "comment on an issue", "list comments on an issue"],
    tools: ["issues_list-for-repo", "issues_create-comment", "issues_list-comments"],
    plan: `const [oldest] = await api["issues_list-for-repo"]({ owner: "octocat", repo: "atlas-sdk", labels: "bug", state: "open", sort: "created", direction: "asc", per_page: 1 });
await api["issues_create-comment"]({ owner: "octocat", repo: "atlas-sdk", issue_number: oldest.number, body: { body: "Does this still happen on the latest release?" } });
const comments = await api["issues_list-comments"]({ owner: "octocat", repo: "atlas-sdk", issue_number: oldest.number, per_page: 100 });
return { issue: oldest.number, comments: comments.map((c) => ({ by: c.user.login, body: c.body })) };`,
  },
  {
    id: "close-wontfix",
    kind: "bulk write, then verify",
    prompt: "Close every open issue labelled wontfix in octocat/harbor-cli, then confirm none is left open.",
    searches: ["list issues in a repository", "update an issue"],
    tools: ["issues_list-for-repo", "issues_update"],
    plan: `const open = await api["issues_list-for-repo"]({ owner: "octocat", repo: "harbor-cli", labels: "wontfix", state: "open", per_page: 100 });
for (const issue of open) {
  await api["issues_update"]({ owner: "octocat", repo: "harbor-cli", issue_number: issue.number, body: { state: "closed", state_reason: "not_planned" } });
}
const left = await api["issues_list-for-repo"]({ owner: "octocat", repo: "harbor-cli", labels: "wontfix", state: "open", per_page: 100 });
return { closed: open.map((i) => i.number), left: left.length };`,
  },
];
