// The code-mode bench's table and its check of upstream effects (bench/code-mode.mjs).

/** The requests the upstream saw, comparable across modes: writes and reads apart, bodies with sorted keys. */
export function effects(requests) {
  const line = ({ method, url, body }) => `${method} ${url}${body ? ` ${canonical(body)}` : ""}`;
  return {
    writes: requests.filter((r) => r.method !== "GET").map(line),
    reads: requests.filter((r) => r.method === "GET").map(line),
  };
}

function canonical(body) {
  try {
    const sort = (value) =>
      Array.isArray(value)
        ? value.map(sort)
        : value && typeof value === "object"
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .map((k) => [k, sort(value[k])]),
            )
          : value;
    return JSON.stringify(sort(JSON.parse(body)));
  } catch {
    return body;
  }
}

/** Each task's writes the same, in the same order, in every mode; its reads the same set (the plans fetch alike). */
export function sameEffects({ runs, tasks }) {
  const problems = [];
  for (const task of tasks) {
    const [first, ...others] = runs.filter((r) => r.task === task.id);
    for (const run of others) {
      if (JSON.stringify(run.effects.writes) !== JSON.stringify(first.effects.writes))
        problems.push(`${task.id}: writes in ${run.mode} mode differ from ${first.mode} mode`);
      if (JSON.stringify([...run.effects.reads].sort()) !== JSON.stringify([...first.effects.reads].sort()))
        problems.push(`${task.id}: reads in ${run.mode} mode differ from ${first.mode} mode`);
    }
  }
  return problems;
}

/** Each task's answer the same in every mode: code mode's script returned what the plan computes from the calls. */
export function sameAnswers({ runs, tasks }) {
  const problems = [];
  for (const task of tasks) {
    const [first, ...others] = runs.filter((r) => r.task === task.id);
    for (const run of others)
      if (run.answer !== first.answer)
        problems.push(`${task.id}: answer in ${run.mode} mode differs from ${first.mode} mode`);
  }
  return problems;
}

const n = (value) => Math.round(value).toLocaleString("en-US");

export function printTable({ runs, tasks, modes }) {
  const of = (task, mode) => runs.find((r) => r.task === task && r.mode === mode);
  const header = ["task", "kind", "upstream requests", ...modes.map((m) => `${m} (calls)`)];
  const ratios = modes.includes("code") ? modes.filter((m) => m !== "code").map((m) => `${m}/code`) : [];
  const rows = tasks.map((task) => {
    const first = of(task.id, modes[0]);
    const upstream = first ? first.effects.reads.length + first.effects.writes.length : 0;
    return [
      task.id,
      task.kind,
      String(upstream),
      ...modes.map((m) => (of(task.id, m) ? `${n(of(task.id, m).total)} (${of(task.id, m).calls})` : "-")),
      ...ratios.map((r) => {
        const [mode] = r.split("/");
        return `${(of(task.id, mode).total / of(task.id, "code").total).toFixed(1)}×`;
      }),
    ];
  });
  const table = [[...header, ...ratios], ...rows];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  console.log("\nTokens (bytes / 4) each plan puts in the model's context: listing + requests + results.");
  for (const [i, row] of table.entries()) {
    console.log(row.map((cell, j) => (j < 2 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join("  "));
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  console.log("\nOf which (median over the tasks):");
  for (const mode of modes) {
    const mine = runs.filter((r) => r.mode === mode);
    const med = (key) => {
      const sorted = mine.map((r) => r[key]).sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    };
    console.log(
      `  ${mode}: listing ${n(mine[0]?.listing ?? 0)}, requests ${n(med("requests"))}, results ${n(med("results"))}`,
    );
  }
}
