// The Try it page: a form from the tool's input schema; "Dry run" shows the exact request (secrets masked) without
// sending it, "Run" calls the tool through the engine as the admin and shows the result as an agent receives it.
// Without a tool in the hash: a search to pick one.

import { api } from "./api.js";
import { argumentsOf, Field, fieldsOf } from "./form.js";
import { href, html, useEffect, useMemo, useState } from "./html.js";
import { Badges, SearchBox, useToolSearch } from "./tools.js";

function Picker() {
  const { query, setQuery, found, error } = useToolSearch();
  return html`<section class="picker" aria-label="Choose a tool to try">
    <h2>Try a tool</h2>
    <${SearchBox} query=${query} setQuery=${setQuery} first=${found?.tools[0]} page="try" />
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <ul class="tool-list">
      ${(found?.tools ?? []).slice(0, 50).map(
        (tool) => html`<li key=${tool.name}><a href=${href("try", tool.name)}><span class="name">${tool.name}</span>
          <span class="title">${tool.title}</span></a></li>`,
      )}
    </ul>
  </section>`;
}

export function Result({ answer }) {
  if (answer.error) return html`<p class="error" role="alert">${answer.error}</p>`;
  return html`<section class="outcome" aria-label="Outcome">
    ${answer.note && html`<p class="note" role="status">${answer.note}</p>`}
    ${
      answer.request !== undefined &&
      html`<h3>Request (not sent)</h3><pre class="request-text" data-request>${answer.request}</pre>`
    }
    ${
      answer.result &&
      html`<h3>${answer.result.isError ? "Result (an error)" : "Result"}</h3>
      <pre class=${answer.result.isError ? "result is-error" : "result"} data-result>${JSON.stringify(answer.result, null, 2)}</pre>`
    }
  </section>`;
}

function ToolForm({ name }) {
  const [tool, setTool] = useState(undefined);
  const [values, setValues] = useState({});
  const [answer, setAnswer] = useState(undefined);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setTool(undefined);
    setAnswer(undefined);
    setValues({});
    api(`tools/${encodeURIComponent(name)}`).then(setTool, (failure) => setAnswer({ error: failure.message }));
  }, [name]);
  const fields = useMemo(() => (tool ? fieldsOf(tool.inputSchema) : []), [tool]);
  const send = async (dryRun) => {
    const read = argumentsOf(fields, values);
    if (read.error) return setAnswer({ error: read.error });
    setBusy(true);
    try {
      setAnswer(await api("try", { body: { tool: name, arguments: read.args, dryRun } }));
    } catch (failure) {
      setAnswer({ error: failure.message });
    } finally {
      setBusy(false);
    }
  };
  if (!tool) return answer ? html`<${Result} answer=${answer} />` : html`<p class="loading">Loading…</p>`;
  return html`<section class="try" aria-label=${`Try ${tool.name}`}>
    <h2>${tool.name}</h2>
    <p class="title">${tool.title} <${Badges} tool=${tool} /></p>
    <p class="request"><code>${tool.method} ${tool.server}${tool.path}</code></p>
    <form onSubmit=${(event) => {
      event.preventDefault();
      send(event.submitter?.value === "dry-run");
    }}>
      ${fields.length === 0 && html`<p class="hint">This tool takes no arguments.</p>`}
      ${fields.map(
        (field) => html`<${Field} key=${field.id} field=${field} value=${values[field.name] ?? ""}
          onChange=${(key, value) => setValues({ ...values, [key]: value })} />`,
      )}
      <div class="actions">
        <button type="submit" value="dry-run" disabled=${busy}>Dry run</button>
        <button type="submit" value="run" class="primary" disabled=${busy}>Run</button>
        <a href=${href("tools", tool.name)}>Schemas</a>
      </div>
    </form>
    ${
      busy &&
      tool.policy === "approve" &&
      html`<p class="note" role="status">Waiting for approval: ${tool.name} needs a person's yes.
        <a href=${href("approvals")}>Approve or decline it on the Approvals page</a>.</p>`
    }
    ${answer && html`<${Result} answer=${answer} />`}
  </section>`;
}

export function TryPage({ param }) {
  return param ? html`<${ToolForm} name=${param} />` : html`<${Picker} />`;
}
