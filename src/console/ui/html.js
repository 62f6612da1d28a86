// The UI library as the pages use it: preact's h bound to htm, so a page writes html`<p>${text}</p>` (text is
// always escaped: no page sets HTML from data), and the hooks. Served from node_modules by the console (assets.ts).

import { h, render } from "../vendor/preact.mjs";
import { useEffect, useMemo, useRef, useState } from "../vendor/hooks.mjs";
import htm from "../vendor/htm.mjs";

export const html = htm.bind(h);
export { render, useEffect, useMemo, useRef, useState };

/** Where the hash says the admin is: `#/tools/repos_get` is page `tools`, parameter `repos_get`. */
export function currentRoute() {
  const [page = "tools", ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  return { page, param: rest.length > 0 ? decodeURIComponent(rest.join("/")) : "" };
}

export function href(page, param) {
  return param ? `#/${page}/${encodeURIComponent(param)}` : `#/${page}`;
}
