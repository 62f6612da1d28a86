// The Activity page: this replica's audit log of the last hour, live (a long poll: the server answers when a line is
// written), narrowed by tool, principal and outcome on the server; per tool, calls, not-ok share and p50/p95 latency
// as a chart and a table. Each line opens (Enter or click) to the whole audit line.

import { ActivityChart, ActivityTable } from "./activity-chart.js";
import { api } from "./api.js";
import { html, useEffect, useState } from "./html.js";

/** Lines kept on the page; older ones drop off as new ones come. */
const SHOWN = 500;
/** After a failed poll (server restarting, network), wait this long before the next. */
const RETRY_MS = 2_000;
/**
 * Polls start at most this often: a quiet server answers a waiting poll at once, a busy one (a line every few ms)
 * sends a second's lines together rather than one answer, and its summary, per line.
 */
const MIN_POLL_MS = 1_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function query(filter, more) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filter, ...more })) if (value) params.set(key, String(value));
  return `activity?${params}`;
}

/** The lines and summary for a filter, kept current while `live`. */
function useActivity(filter, live) {
  const [state, setState] = useState({ lines: undefined, summary: undefined, error: "" });
  useEffect(() => {
    const aborted = new AbortController();
    const { signal } = aborted;
    (async () => {
      let after;
      while (!signal.aborted) {
        const started = Date.now();
        try {
          const json = await api(query(filter, after === undefined ? {} : { after, wait: 1 }), { signal });
          const first = after === undefined;
          setState((old) => ({
            lines: first ? json.lines : [...json.lines, ...old.lines].slice(0, SHOWN),
            summary: json,
            error: "",
          }));
          after = json.last;
          if (!live) return;
          await sleep(started + MIN_POLL_MS - Date.now());
        } catch (failure) {
          if (signal.aborted) return;
          setState((old) => ({ ...old, error: failure.message }));
          await sleep(RETRY_MS);
        }
      }
    })();
    return () => aborted.abort();
  }, [filter.tool, filter.principal, filter.outcome, live]);
  return state;
}

function Choice({ id, label, value, options, onChange, none = "any" }) {
  return html`<label for=${id}>${label}
    <select id=${id} value=${value} onChange=${(event) => onChange(event.currentTarget.value)}>
      <option value="">${none}</option>
      ${options.map((option) => html`<option value=${option.value ?? option}>${option.label ?? option}</option>`)}
    </select></label>`;
}

function time(iso) {
  return new Date(iso).toLocaleTimeString([], { hour12: false });
}

function Line({ line }) {
  const bad = line.outcome !== "ok";
  return html`<li data-seq=${line.seq} data-tool=${line.tool} data-outcome=${line.outcome}>
    <details>
      <summary>
        <time datetime=${line.time}>${time(line.time)}</time>
        <span class=${`badge ${bad ? "outcome-bad" : "outcome-ok"}`}>${line.outcome}</span>
        <span class="name">${line.tool}</span>
        <span class="principal">${line.principal ?? "(none)"}</span>
        <span class="status">${line.method ? `${line.method} ${line.status ?? ""}` : ""}</span>
        <span class="duration">${line.durationMs} ms</span>
      </summary>
      <pre>${JSON.stringify(line, null, 2)}</pre>
    </details>
  </li>`;
}

function replicaNote(summary) {
  const minutes = summary?.window.minutes ?? 60;
  const lines = (summary?.window.maxLines ?? 10_000).toLocaleString("en");
  const mib = Math.round((summary?.window.maxBytes ?? 8 * 1024 * 1024) / (1024 * 1024));
  return [
    `This replica only${summary ? ` (${summary.replica})` : ""}: its calls of the last ${minutes} minutes, at most`,
    `${lines} lines and ${mib} MiB, kept in memory. Other replicas show theirs in their own console; a view across replicas is the`,
    "job of the log pipeline --audit-log feeds.",
  ].join(" ");
}

export function ActivityPage() {
  const [filter, setFilter] = useState({ tool: "", principal: "", outcome: "" });
  const [live, setLive] = useState(true);
  const { lines, summary, error } = useActivity(filter, live);
  const set = (key) => (value) => setFilter({ ...filter, [key]: value });
  const seen = summary?.seen ?? { tools: [], principals: [], outcomes: [] };
  // A chosen value stays a choice even when the hour no longer holds it.
  const withChosen = (list, chosen) => (chosen && !list.includes(chosen) ? [chosen, ...list] : list);
  return html`<div class="activity">
    <section class="panel" aria-label="Last hour per tool">
      <h2>Activity</h2>
      <p class="hint" data-replica>${replicaNote(summary)}</p>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${summary && summary.tools.length === 0 && html`<p class="hint">No calls in the last hour.</p>`}
      ${
        summary &&
        summary.tools.length > 0 &&
        html`<${ActivityChart} tools=${summary.tools} />
        <${ActivityTable} tools=${summary.tools} onTool=${set("tool")} />`
      }
    </section>
    <section class="panel" aria-label="Audit log">
      <form class="filters" onSubmit=${(event) => event.preventDefault()}>
        <${Choice} id="filter-tool" label="Tool" value=${filter.tool} options=${withChosen(seen.tools, filter.tool)}
          onChange=${set("tool")} />
        <${Choice} id="filter-principal" label="Principal" value=${filter.principal}
          options=${withChosen(seen.principals, filter.principal)} onChange=${set("principal")} />
        <${Choice} id="filter-outcome" label="Outcome" value=${filter.outcome}
          options=${[{ value: "not_ok", label: "not ok (any)" }, ...withChosen(seen.outcomes, filter.outcome)]}
          onChange=${set("outcome")} />
        <button type="button" aria-pressed=${live} onClick=${() => setLive(!live)}>${live ? "Pause" : "Resume"}</button>
        <span class="hint" role="status">${live ? "Live" : "Paused"}</span>
      </form>
      ${lines === undefined && !error && html`<p class="loading">Loading…</p>`}
      ${lines?.length === 0 && html`<p class="hint">No lines match.</p>`}
      ${
        lines?.length > 0 &&
        html`<ol class="activity-log" aria-label="Audit lines, newest first">
        ${lines.map((line) => html`<${Line} key=${line.seq} line=${line} />`)}
      </ol>`
      }
    </section>
  </div>`;
}
