// Stand-ins for specs the search was not tuned on, made from GitHub's own (tuned) task set: the same tasks over
// GitHub's tools with what GitHub's spec does for the search taken away. A change tuned on GitHub's set that also
// helps here is more likely general. Only structure is changed; the tasks and the expected tools stay.
//
//   no-summaries: each tool's title is its name (as in specs without summaries: Stripe, Kubernetes).
//   path-ids: no summaries, no tags, and names made from method and path as some specs' ids are
//     (GET /repos/{owner}/{repo}/issues → GetReposOwnerRepoIssues, as Stripe's).

export const STANDINS = {
  "no-summaries": (tool) => ({ ...tool, title: tool.name, description: withoutSummary(tool) }),
  "path-ids": (tool) => {
    const name = pathId(tool.operation);
    return { ...tool, name, title: name, description: withoutSummary(tool), origin: { ...tool.origin, tags: [] } };
  },
};

/** The tool's description opens with its summary (the catalog puts it there): taken away too. */
function withoutSummary({ title, description }) {
  return description.startsWith(title) ? description.slice(title.length).trim() : description;
}

function pathId({ method, path }) {
  const words = path
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "")
    .map((word) => word[0].toUpperCase() + word.slice(1));
  return method[0] + method.slice(1).toLowerCase() + words.join("");
}

/** Tools transformed for `variant`, and a map back from each new name to the tool's real one (what tasks expect). */
export function standIn({ tools, variant }) {
  const change = STANDINS[variant];
  const changed = tools.map(change);
  const real = new Map(changed.map((tool, at) => [tool.name, tools[at].name]));
  return { tools: changed, real };
}
