// The Activity page's summary of the last hour, per tool: a small chart drawn as SVG here (bars for calls, the red
// part those not ok; a bar to p50 and a lighter one on to p95 for latency; no chart library: it is a few rects) and
// the same figures as a table, whose tool names narrow the log to that tool.

import { html } from "./html.js";

/** Tools drawn in the chart (the table lists them all). */
const CHART_TOOLS = 12;
const ROW = 22;
const LABEL = 220;
const BAR = 240;
const GAP = 24;
const WIDTH = LABEL + BAR + GAP + BAR;

function cut(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function percent(rate) {
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.01 ? 1 : 0)}%`;
}

export function ActivityChart({ tools }) {
  const shown = tools.slice(0, CHART_TOOLS);
  if (shown.length === 0) return null;
  const most = Math.max(...shown.map((t) => t.calls));
  const slowest = Math.max(1, ...shown.map((t) => t.p95Ms));
  const height = ROW * (shown.length + 1);
  const calls = (n) => (n / most) * BAR;
  const ms = (n) => (n / slowest) * BAR;
  const summary = shown.map(
    (t) => `${t.tool}: ${t.calls} calls, ${t.errors} not ok, p50 ${t.p50Ms} ms, p95 ${t.p95Ms} ms`,
  );
  return html`<svg class="activity-chart" viewBox=${`0 0 ${WIDTH} ${height}`} width=${WIDTH} height=${height}
      role="img" aria-label=${`Calls and latency per tool, last hour. ${summary.join("; ")}`}>
    <text x=${LABEL} y="14" class="axis">calls (${most} most; red: not ok)</text>
    <text x=${LABEL + BAR + GAP} y="14" class="axis">latency p50 | p95 (${slowest} ms most)</text>
    ${shown.map((t, i) => {
      const y = ROW * (i + 1);
      return html`<g key=${t.tool}>
        <title>${summary[i]}</title>
        <text x=${LABEL - 8} y=${y + 15} class="label" text-anchor="end">${cut(t.tool, 28)}</text>
        <rect x=${LABEL} y=${y + 4} width=${calls(t.calls - t.errors)} height="14" class="bar-ok" />
        <rect x=${LABEL + calls(t.calls - t.errors)} y=${y + 4} width=${calls(t.errors)} height="14" class="bar-bad" />
        <rect x=${LABEL + BAR + GAP} y=${y + 4} width=${ms(t.p95Ms)} height="14" class="bar-p95" />
        <rect x=${LABEL + BAR + GAP} y=${y + 4} width=${ms(t.p50Ms)} height="14" class="bar-p50" />
      </g>`;
    })}
  </svg>`;
}

export function ActivityTable({ tools, onTool }) {
  return html`<table class="activity-table">
    <caption class="hint">Per tool, last hour</caption>
    <thead><tr><th scope="col">Tool</th><th scope="col">Calls</th><th scope="col">Not ok</th>
      <th scope="col">Error rate</th><th scope="col">p50 ms</th><th scope="col">p95 ms</th></tr></thead>
    <tbody>
      ${tools.map(
        (t) => html`<tr key=${t.tool} data-tool=${t.tool}>
          <th scope="row"><button type="button" class="link" title="Show only this tool's calls"
            onClick=${() => onTool(t.tool)}>${t.tool}</button></th>
          <td data-calls>${t.calls}</td><td data-errors>${t.errors}</td><td data-rate>${percent(t.errorRate)}</td>
          <td>${t.p50Ms}</td><td>${t.p95Ms}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}
