// The data behind the local GitHub upstream, where tasks need it consistent: the authenticated user's repositories
// (a list's repositories exist when fetched, with their counts), each repository's issues and pull requests (labels,
// states, created_at dates, comments), an organization's members. Made from a seed, kept in memory, changed by the
// writes the tasks make (an issue created, updated or commented on is there when read back). Rendered through the
// spec's own examples (github-values.mjs), so every object has GitHub's real shape and size.

import { Rng } from "./github-values.mjs";

export const OWNER = "octocat";
export const ORG = "octo-org";
/** The world's "now": dates are before it, so output does not depend on the day the bench runs. */
const NOW = Date.parse("2026-11-30T00:00:00Z");
const DAY = 86_400_000;
const WORDS = ["atlas", "beacon", "cobalt", "delta", "ember", "fjord", "granite", "harbor", "iris", "juniper"];
const KINDS = ["api", "cli", "web", "sdk", "docs", "infra"];
const LABELS = ["bug", "enhancement", "documentation", "question", "wontfix", "good first issue", "help wanted"];
const LANGUAGES = ["TypeScript", "Go", "Python", "Rust", "Java", "Ruby"];
const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export class GithubWorld {
  constructor({ seed, template }) {
    this.seed = seed;
    /** (toolName) => the tool's template value (a list's is an array). */
    this.template = template;
    const rng = new Rng(seed, "world");
    this.members = Array.from({ length: 40 }, (_, i) => `${WORDS[i % 10]}-dev${Math.floor(i / 10) || ""}`);
    this.repos = [];
    for (const word of WORDS) {
      for (const kind of KINDS.slice(0, rng.int(3, 4))) {
        const created = NOW - rng.int(200, 2500) * DAY;
        this.repos.push({
          id: 100_000 + this.repos.length,
          name: `${word}-${kind}`,
          created,
          pushed: NOW - rng.int(0, 150) * DAY,
          stars: rng.int(0, 4000),
          forks: rng.int(0, 300),
          language: rng.pick(LANGUAGES),
          issueCount: rng.pick([0, 3, 8, 15, 30, 60, 140]) + rng.int(0, 9),
        });
      }
    }
    this.issues = new Map();
    this.comments = new Map();
  }

  repo(name) {
    return this.repos.find((repo) => repo.name === name);
  }

  /** A repository's issues and pull requests, newest first, made on first use. */
  issuesOf(repo) {
    let list = this.issues.get(repo.name);
    if (list) return list;
    const rng = new Rng(this.seed, `issues:${repo.name}`);
    list = [];
    for (let number = 1; number <= repo.issueCount; number++) {
      const created = repo.created + Math.floor(((NOW - repo.created) * number) / (repo.issueCount + 1));
      const open = rng.bool(0.55);
      list.unshift({
        number,
        title: `${rng.pick(["Crash", "Typo", "Support", "Slow", "Broken", "Add"])} in ${rng.pick(KINDS)} module #${number}`,
        state: open ? "open" : "closed",
        labels: LABELS.filter(() => rng.bool(0.22)),
        created,
        updated: Math.min(NOW, created + rng.int(0, 90) * DAY),
        closed: open ? null : Math.min(NOW, created + rng.int(1, 60) * DAY),
        user: rng.pick(this.members),
        comments: rng.int(0, 6),
        pull: rng.bool(0.25),
        // Most issues have no milestone and no assignee: the example has both, which doubles its size.
        milestone: rng.bool(0.2),
        assigned: rng.bool(0.3),
      });
    }
    this.issues.set(repo.name, list);
    return list;
  }

  openIssueCount(repo) {
    return this.issuesOf(repo).filter((issue) => issue.state === "open").length;
  }

  createIssue(repo, { title, body, labels = [] }) {
    const list = this.issuesOf(repo);
    const number = Math.max(0, ...list.map((issue) => issue.number)) + 1;
    const issue = { number, title, body, state: "open", labels, created: NOW, updated: NOW, closed: null };
    Object.assign(issue, { user: OWNER, comments: 0, pull: false });
    list.unshift(issue);
    return issue;
  }

  commentsOf(repo, issue) {
    const key = `${repo.name}#${issue.number}`;
    if (!this.comments.has(key)) {
      const rng = new Rng(this.seed, `comments:${key}`);
      const made = Array.from({ length: issue.comments }, (_, i) => ({
        id: 9_000_000 + issue.number * 100 + i,
        body: `Comment ${i + 1}: ${rng.pick(["I see this too.", "Fixed on main?", "+1", "Any update?"])}`,
        user: rng.pick(this.members),
        created: issue.created + (i + 1) * DAY,
      }));
      this.comments.set(key, made);
    }
    return this.comments.get(key);
  }

  addComment(repo, issue, body) {
    const list = this.commentsOf(repo, issue);
    const comment = { id: 9_900_000 + list.length, body, user: OWNER, created: NOW };
    list.push(comment);
    issue.comments = list.length;
    return comment;
  }

  // Rendering: the example with this object's names, numbers and dates.

  user(login) {
    return this.rewrite(this.first("orgs_list-members"), { octocat: login });
  }

  repoJson(repo, { full = false } = {}) {
    const base = full ? this.template("repos_get") : this.first("repos_list-for-authenticated-user");
    const value = this.rewrite(base, { "Hello-World": repo.name });
    const open = this.openIssueCount(repo);
    Object.assign(value, {
      id: repo.id,
      node_id: `R_${repo.id}`,
      language: repo.language,
      stargazers_count: repo.stars,
      watchers_count: repo.stars,
      watchers: repo.stars,
      forks_count: repo.forks,
      forks: repo.forks,
      open_issues_count: open,
      open_issues: open,
      created_at: iso(repo.created),
      updated_at: iso(repo.pushed),
      pushed_at: iso(repo.pushed),
    });
    return value;
  }

  issueJson(repo, issue) {
    const base = this.rewrite(this.template("issues_get"), { "Hello-World": repo.name, 1347: String(issue.number) });
    const label = this.first("issues_list-labels-for-repo");
    Object.assign(base, {
      id: repo.id * 10_000 + issue.number,
      node_id: `I_${repo.id}_${issue.number}`,
      number: issue.number,
      title: issue.title,
      body: issue.body ?? base.body,
      state: issue.state,
      state_reason: issue.state === "closed" ? "completed" : null,
      labels: issue.labels.map((name, i) => ({ ...label, id: 200 + LABELS.indexOf(name) + i * 0, name })),
      user: this.user(issue.user),
      comments: issue.comments,
      created_at: iso(issue.created),
      updated_at: iso(issue.updated),
      closed_at: issue.closed === null ? null : iso(issue.closed),
    });
    if (!issue.pull) delete base.pull_request;
    if (!issue.milestone) base.milestone = null;
    if (!issue.assigned) Object.assign(base, { assignee: null, assignees: [] });
    return base;
  }

  pullJson(repo, issue) {
    const base = this.rewrite(this.first("pulls_list"), { "Hello-World": repo.name, 1347: String(issue.number) });
    return Object.assign(base, {
      id: repo.id * 10_000 + issue.number,
      number: issue.number,
      title: issue.title,
      state: issue.state,
      user: this.user(issue.user),
      created_at: iso(issue.created),
      updated_at: iso(issue.updated),
      closed_at: issue.closed === null ? null : iso(issue.closed),
      merged_at: null,
    });
  }

  commentJson(repo, issue, comment) {
    const base = this.rewrite(this.template("issues_get-comment"), {
      "Hello-World": repo.name,
      1347: String(issue.number),
    });
    return Object.assign(base, {
      id: comment.id,
      body: comment.body,
      user: this.user(comment.user),
      created_at: iso(comment.created),
      updated_at: iso(comment.created),
    });
  }

  first(tool) {
    const value = this.template(tool);
    return structuredClone(Array.isArray(value) ? value[0] : value);
  }

  /** The value with every occurrence of each key replaced in its strings (URLs, names, logins). */
  rewrite(value, replacements) {
    let text = JSON.stringify(value);
    for (const [from, to] of Object.entries(replacements)) text = text.replaceAll(from, to);
    return JSON.parse(text);
  }
}
