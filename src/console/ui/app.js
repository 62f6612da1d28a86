// The console's page: the login form until there is a session, then the pages' navigation and the page the hash
// names. A page is one module exporting a component that takes `{ param }`, registered in PAGES (and its API in
// src/console/page.ts). `/` focuses the page's search box wherever focus is not in a field.

import { ActivityPage } from "./activity.js";
import { ApiError, api, setCsrf } from "./api.js";
import { currentRoute, href, html, render, useEffect, useState } from "./html.js";
import { ApprovalsPage } from "./approvals.js";
import { AuthorPage } from "./author.js";
import { ToolsPage } from "./tools.js";
import { TryPage } from "./try.js";

const PAGES = [
  { id: "tools", title: "Tools", component: ToolsPage },
  { id: "try", title: "Try it", component: TryPage },
  { id: "author", title: "Author", component: AuthorPage },
  { id: "approvals", title: "Approvals", component: ApprovalsPage },
  { id: "activity", title: "Activity", component: ActivityPage },
];

function Login({ onSession }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState("");
  const submit = async (event) => {
    event.preventDefault();
    try {
      onSession(await api("login", { body: { token } }));
    } catch (failure) {
      setError(failure.message);
    }
  };
  return html`<main class="login">
    <h1>openapi-mcp console</h1>
    <form onSubmit=${submit}>
      <label for="token">Admin token</label>
      <input id="token" type="password" autocomplete="current-password" autofocus value=${token}
        onInput=${(event) => setToken(event.currentTarget.value)} />
      <button type="submit">Log in</button>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </form>
    <p class="hint">The token is the value of the variable <code>--console-token-env</code> names, or an OAuth
      access token with the <code>openapi-mcp:admin</code> scope or role.</p>
  </main>`;
}

function App() {
  const [session, setSession] = useState(undefined);
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    api("session").then(start, (failure) => {
      if (failure instanceof ApiError && failure.status === 401) setSession(null);
      else setSession({ failure: failure.message });
    });
    const moved = () => setRoute(currentRoute());
    addEventListener("hashchange", moved);
    return () => removeEventListener("hashchange", moved);
  }, []);
  useEffect(() => {
    const slash = (event) => {
      const typing = event.target.closest?.("input, textarea, select");
      if (event.key !== "/" || typing || event.ctrlKey || event.metaKey || event.altKey) return;
      const search = document.querySelector("[data-search]");
      if (search) {
        event.preventDefault();
        search.focus();
        search.select();
      }
    };
    addEventListener("keydown", slash);
    return () => removeEventListener("keydown", slash);
  }, []);
  function start(json) {
    setCsrf(json.csrf);
    setSession({ who: json.who });
  }
  const logOut = async () => {
    await api("logout", { body: {} }).catch(() => {});
    setSession(null);
  };
  if (session === undefined) return html`<p class="loading">Loading…</p>`;
  if (session === null) return html`<${Login} onSession=${start} />`;
  if (session.failure) return html`<p class="error" role="alert">${session.failure}</p>`;
  const page = PAGES.find((p) => p.id === route.page) ?? PAGES[0];
  return html`<header class="top">
      <strong class="brand">openapi-mcp</strong>
      <nav aria-label="Pages">
        ${PAGES.map((p) => html`<a href=${href(p.id)} aria-current=${p === page ? "page" : undefined}>${p.title}</a>`)}
      </nav>
      <span class="who">${session.who}</span>
      <button type="button" class="quiet" onClick=${logOut}>Log out</button>
    </header>
    <main><${page.component} key=${page.id} param=${route.param} /></main>`;
}

render(html`<${App} />`, document.getElementById("app"));
