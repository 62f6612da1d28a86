// The Tools page: every tool, searched with dynamic mode's search as you type; the one the hash names in full
// (description, request, class, policy, profiles, token cost, input and output schemas). Keyboard: `/` to search,
// Enter opens the first result, arrow keys move through the list, Enter opens a tool.

import { api } from "./api.js";
import { href, html, useEffect, useRef, useState } from "./html.js";

/** Typing pauses this long before a search is sent. */
const SEARCH_DELAY_MS = 120;

export function Badges({ tool }) {
  return html`<span class=${`badge effect-${tool.effect}`}>${tool.effect}</span>
    <span class=${`badge policy-${tool.policy}`}>${tool.policy}</span>`;
}

function ToolList({ tools, selected }) {
  const move = (event) => {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const links = [...event.currentTarget.querySelectorAll("a")];
    const at = links.indexOf(document.activeElement);
    const next = links[Math.max(0, Math.min(links.length - 1, at + (event.key === "ArrowDown" ? 1 : -1)))];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  };
  return html`<ul class="tool-list" onKeyDown=${move}>
    ${tools.map(
      (tool) => html`<li key=${tool.name} class=${tool.name === selected ? "selected" : ""}>
        <a href=${href("tools", tool.name)}>
          <span class="name">${tool.name}</span>
          <span class="title">${tool.title}</span>
          <span class="meta"><${Badges} tool=${tool} /><span class="tokens">${tool.tokens} tokens</span></span>
        </a>
      </li>`,
    )}
  </ul>`;
}

function Detail({ name }) {
  const [tool, setTool] = useState(undefined);
  const [error, setError] = useState("");
  useEffect(() => {
    setTool(undefined);
    setError("");
    api(`tools/${encodeURIComponent(name)}`).then(setTool, (failure) => setError(failure.message));
  }, [name]);
  if (error) return html`<section class="detail"><p class="error" role="alert">${error}</p></section>`;
  if (!tool) return html`<section class="detail"><p class="loading">Loading…</p></section>`;
  return html`<section class="detail" aria-label=${`Tool ${tool.name}`}>
    <h2>${tool.name}</h2>
    <p class="title">${tool.title}</p>
    <p class="request"><code>${tool.method} ${tool.server}${tool.path}</code></p>
    <dl class="facts">
      <dt>Class</dt><dd><span class=${`badge effect-${tool.effect}`}>${tool.effect}</span></dd>
      <dt>Policy</dt><dd><span class=${`badge policy-${tool.policy}`}>${tool.policy}</span> <span class="rule">${tool.rule}</span></dd>
      <dt>Profiles</dt><dd>${tool.profiles === null ? "every caller (no profiles)" : tool.profiles.join(", ") || "none"}</dd>
      <dt>Token cost</dt><dd>about ${tool.tokens} tokens in tools/list</dd>
      ${tool.source && html`<dt>Source</dt><dd>${tool.source}</dd>`}
    </dl>
    <p><a class="button" href=${href("try", tool.name)}>Try it</a></p>
    ${tool.description && html`<p class="description">${tool.description}</p>`}
    <h3>Input schema</h3>
    <pre class="schema">${JSON.stringify(tool.inputSchema, null, 2)}</pre>
    <h3>Output schema</h3>
    ${
      tool.outputSchema
        ? html`<pre class="schema">${JSON.stringify(tool.outputSchema, null, 2)}</pre>`
        : html`<p class="hint">None advertised.</p>`
    }
  </section>`;
}

export function useToolSearch() {
  const [query, setQuery] = useState("");
  const [found, setFound] = useState(undefined);
  const [error, setError] = useState("");
  useEffect(() => {
    const aborted = new AbortController();
    const run = () =>
      api(query.trim() ? `tools?q=${encodeURIComponent(query.trim())}` : "tools", { signal: aborted.signal }).then(
        setFound,
        (failure) => failure.name !== "AbortError" && setError(failure.message),
      );
    const timer = setTimeout(run, query ? SEARCH_DELAY_MS : 0);
    return () => {
      clearTimeout(timer);
      aborted.abort();
    };
  }, [query]);
  return { query, setQuery, found, error };
}

export function SearchBox({ query, setQuery, first, page }) {
  const open = (event) => {
    if (event.key === "Enter" && first) location.hash = href(page, first.name);
    if (event.key === "ArrowDown") {
      event.preventDefault();
      document.querySelector(".tool-list a")?.focus();
    }
  };
  return html`<input type="search" data-search placeholder="Search tools (press /)" aria-label="Search tools"
    value=${query} onInput=${(event) => setQuery(event.currentTarget.value)} onKeyDown=${open} />`;
}

export function ToolsPage({ param }) {
  const { query, setQuery, found, error } = useToolSearch();
  const painted = useRef(false);
  useEffect(() => {
    // For the browser test's first-render figure: navigation start to the whole list painted.
    if (!found || painted.current) return;
    painted.current = true;
    requestAnimationFrame(() => {
      document.documentElement.dataset.toolsPainted = String(Math.round(performance.now()));
    });
  }, [found]);
  return html`<div class="tools">
    <section class="browse" aria-label="Tools">
      <${SearchBox} query=${query} setQuery=${setQuery} first=${found?.tools[0]} page="tools" />
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${
        found &&
        html`<p class="count">${query.trim() ? `${found.tools.length} found of ${found.total}` : `${found.total} tools`}</p>
        <${ToolList} tools=${found.tools} selected=${param} />`
      }
    </section>
    ${param ? html`<${Detail} name=${param} />` : html`<section class="detail empty"><p class="hint">Choose a tool.</p></section>`}
  </div>`;
}
