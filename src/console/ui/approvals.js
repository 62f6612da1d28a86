// The Approvals page: the calls waiting for a person, polled every second (same origin, as the CSP's connect-src
// allows), each with the question an MCP client would show (tool, method, URL, masked arguments), who asked, when,
// and the time left; Approve sends the call, Decline stops it. The server names the admin on the audit line.

import { api } from "./api.js";
import { html, useEffect, useState } from "./html.js";

const POLL_MS = 1000;

function left(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}

function Waiting({ call, skew, decide, busy }) {
  const asked = new Date(call.askedAt).toLocaleTimeString();
  const remaining = call.expiresAt - (Date.now() + skew);
  return html`<li class="approval" data-approval=${call.tool}>
    <h3><span class="name">${call.tool}</span> <span class=${`badge effect-${call.effect}`}>${call.effect}</span></h3>
    <p class="request"><code>${call.method} ${call.url}</code></p>
    <dl class="facts">
      <dt>Asked by</dt><dd>${call.principal ?? "an unauthenticated client"}</dd>
      <dt>Asked at</dt><dd>${asked}</dd>
      <dt>Time left</dt><dd data-left>${left(remaining)}</dd>
    </dl>
    <pre class="request-text" data-message>${call.message}</pre>
    <div class="actions">
      <button type="button" class="primary" disabled=${busy} onClick=${() => decide(call, "approve")}>Approve</button>
      <button type="button" disabled=${busy} onClick=${() => decide(call, "decline")}>Decline</button>
    </div>
  </li>`;
}

export function ApprovalsPage() {
  const [state, setState] = useState({ pending: undefined, skew: 0 });
  const [, tick] = useState(0);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let stopped = false;
    // A failed poll's message (e.g. the shared queue in Redis unreachable) goes once a poll succeeds again.
    let failed = "";
    const poll = async () => {
      try {
        const json = await api("approvals");
        if (stopped) return;
        setState({ pending: json.pending, skew: json.now - Date.now() });
        if (failed) setStatus((now) => (now === failed ? "" : now));
        failed = "";
      } catch (failure) {
        if (stopped) return;
        failed = failure.message;
        setStatus(failure.message);
      }
    };
    poll();
    const timer = setInterval(() => {
      poll();
      tick((n) => n + 1);
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  const decide = async (call, decision) => {
    setBusy(true);
    try {
      await api(`approvals/${encodeURIComponent(call.id)}`, { body: { decision } });
      setStatus(`${decision === "approve" ? "Approved" : "Declined"} ${call.tool}.`);
      setState((now) => ({ ...now, pending: now.pending.filter((p) => p.id !== call.id) }));
    } catch (failure) {
      setStatus(failure.message);
    } finally {
      setBusy(false);
    }
  };
  const { pending, skew } = state;
  return html`<section class="approvals" aria-label="Approvals">
    <h2>Approvals</h2>
    <p class="hint">Calls waiting for a person. Nothing is sent unless you approve; no answer in time counts as no.</p>
    <p class="note-line" role="status">${status}</p>
    ${pending === undefined && html`<p class="loading">Loading…</p>`}
    ${pending?.length === 0 && html`<p class="empty">No call is waiting.</p>`}
    <ul class="approval-list">
      ${(pending ?? []).map(
        (call) => html`<${Waiting} key=${call.id} call=${call} skew=${skew} decide=${decide} busy=${busy} />`,
      )}
    </ul>
  </section>`;
}
