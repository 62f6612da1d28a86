// The Author page: an action definition written here or uploaded (YAML or JSON), checked as the admin types (by the
// server's validator, the one `validate` uses: errors at line and column, each a button that puts the cursor
// there); one of its actions tried before publishing (a form from its input schema, Dry run and Run as on Try it);
// Publish writes it into the registry. Below: what the registry serves, with the errors of rejected sources.

import { api } from "./api.js";
import { argumentsOf, Field, fieldsOf } from "./form.js";
import { html, useEffect, useMemo, useRef, useState } from "./html.js";
import { Result } from "./try.js";

/** How long typing pauses before the text is checked. */
const CHECK_AFTER_MS = 300;

const STARTER = `# An action definition: an API without an OpenAPI document (docs/your-api.md, "Custom action definitions").
name: my_api
description: What this API is for
baseUrl: https://api.example.com/v1
auth: { type: none }
actions:
  - name: get_thing
    description: Fetch one thing by id.
    method: GET
    path: /things/{id}
    inputSchema:
      type: object
      required: [id]
      properties:
        id: { type: string }
`;

/** The textarea's cursor put at a 1-based line and column. */
function moveTo(area, line, column) {
  const lines = area.value.split("\n");
  const at = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + Math.max(0, column - 1);
  area.focus();
  area.setSelectionRange(at, at);
}

function Errors({ errors, area }) {
  if (errors.length === 0) return html`<p class="ok" role="status" data-valid>No errors.</p>`;
  return html`<ul class="problems" aria-label="Errors" data-errors>
    ${errors.map(
      (e, i) => html`<li key=${i}>
        ${
          e.line !== undefined && !area
            ? html`<span class="place">line ${e.line}, column ${e.column ?? 1}:</span> `
            : e.line !== undefined
              ? html`<button type="button" class="link" onClick=${() => moveTo(area.current, e.line, e.column ?? 1)}>
              line ${e.line}, column ${e.column ?? 1}</button> `
              : ""
        }<span>${e.message}</span></li>`,
    )}
  </ul>`;
}

function TryAction({ draft, actions }) {
  const [chosen, setChosen] = useState("");
  const [values, setValues] = useState({});
  const [answer, setAnswer] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const action = actions.find((a) => a.name === chosen) ?? actions[0];
  const fields = useMemo(() => (action ? fieldsOf(action.inputSchema) : []), [action]);
  if (!action) return "";
  const send = async (dryRun) => {
    const read = argumentsOf(fields, values);
    if (read.error) return setAnswer({ error: read.error });
    setBusy(true);
    try {
      setAnswer(await api("author/try", { body: { ...draft, action: action.name, arguments: read.args, dryRun } }));
    } catch (failure) {
      setAnswer({ error: failure.message });
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="panel" aria-label="Try an action">
    <h3>Try an action before publishing</h3>
    <label class="field">Action
      <select data-action value=${action.name} onChange=${(e) => {
        setChosen(e.currentTarget.value);
        setValues({});
        setAnswer(undefined);
      }}>
        ${actions.map((a) => html`<option key=${a.name} value=${a.name}>${a.name}</option>`)}
      </select>
    </label>
    <p class="request"><code>${action.method} ${action.server}${action.path}</code></p>
    <form onSubmit=${(event) => {
      event.preventDefault();
      send(event.submitter?.value === "dry-run");
    }}>
      ${fields.map(
        (field) => html`<${Field} key=${`${action.name}/${field.id}`} field=${field} value=${values[field.name] ?? ""}
          onChange=${(key, value) => setValues({ ...values, [key]: value })} />`,
      )}
      <div class="actions">
        <button type="submit" value="dry-run" disabled=${busy}>Dry run</button>
        <button type="submit" value="run" disabled=${busy}>Run</button>
      </div>
    </form>
    ${answer && html`<${Result} answer=${answer} />`}
  </section>`;
}

function RegistryStatus({ status }) {
  if (!status) return html`<p class="loading">Loading…</p>`;
  if (!status.registry) return html`<p class="note" data-no-registry>${status.enable}</p>`;
  const { registry } = status;
  return html`<section class="panel" aria-label="Registry">
    <h3>Registry</h3>
    <p class="hint">${registry.watching}: version ${registry.version}, ${registry.tools} tools, published ${new Date(registry.publishedAt).toLocaleTimeString()} (${registry.reloadMs} ms)</p>
    <ul class="sources" data-sources>
      ${registry.sources.map(
        (s) => html`<li key=${s.name} data-source=${s.name}>
          <span class="name">${s.name}</span>
          <span class=${`badge ${s.state === "published" ? "outcome-ok" : "outcome-bad"}`}>${s.state}</span>
          <span class="hint">v${s.version}${s.digest ? ` · ${s.digest}` : ""}</span>
          ${s.errors.length > 0 && html`<${Errors} errors=${s.errors} />`}
        </li>`,
      )}
    </ul>
  </section>`;
}

export function AuthorPage() {
  const [name, setName] = useState("my-actions.yaml");
  const [text, setText] = useState(STARTER);
  const [checked, setChecked] = useState(undefined);
  const [status, setStatus] = useState(undefined);
  const [published, setPublished] = useState(undefined);
  const area = useRef(null);
  const loadStatus = () => api("author").then(setStatus, (failure) => setStatus({ enable: failure.message }));
  useEffect(() => void loadStatus(), []);
  useEffect(() => {
    const stop = new AbortController();
    const timer = setTimeout(() => {
      api("author/check", { body: { name, text }, signal: stop.signal }).then(setChecked, (failure) => {
        if (!stop.signal.aborted) setChecked({ errors: [{ message: failure.message }], actions: [] });
      });
    }, CHECK_AFTER_MS);
    return () => {
      clearTimeout(timer);
      stop.abort();
    };
  }, [name, text]);
  const upload = async (event) => {
    const file = event.currentTarget.files?.[0];
    if (!file) return;
    setName(file.name);
    setText(await file.text());
  };
  const publish = async () => {
    try {
      setPublished(await api("author/publish", { body: { name, text } }));
    } catch (failure) {
      setPublished({ published: false, errors: [{ message: failure.message }] });
    }
    loadStatus();
  };
  const errors = checked?.errors ?? [];
  const canPublish = Boolean(status?.registry) && checked !== undefined && errors.length === 0;
  return html`<div class="author">
    <section class="panel" aria-label="Definition">
      <h2>Author an action definition</h2>
      <div class="filters">
        <label>File name <input data-name value=${name} onInput=${(e) => setName(e.currentTarget.value)} /></label>
        <label>Upload YAML or JSON <input type="file" accept=".yaml,.yml,.json" data-upload onChange=${upload} /></label>
      </div>
      <textarea ref=${area} class="source" data-source-text spellcheck="false" rows="26" aria-label="Definition text"
        value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
      ${checked === undefined ? html`<p class="loading">Checking…</p>` : html`<${Errors} errors=${errors} area=${area} />`}
      <div class="actions">
        <button type="button" class="primary" data-publish disabled=${!canPublish} onClick=${publish}>Publish</button>
        ${
          published &&
          (published.published
            ? html`<span role="status" data-published>Published ${published.name}: catalog version ${published.version}, ${published.tools} tools.</span>`
            : html`<span class="error" role="alert" data-refused>Not published: ${published.errors
                .map((e) => (e.line ? `line ${e.line}, column ${e.column}: ${e.message}` : e.message))
                .join("; ")}</span>`)
        }
      </div>
    </section>
    <div class="side">
      ${errors.length === 0 && checked && html`<${TryAction} draft=${{ name, text }} actions=${checked.actions} />`}
      <${RegistryStatus} status=${status} />
    </div>
  </div>`;
}
