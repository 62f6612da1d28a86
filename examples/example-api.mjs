// The bundled example API, in memory on loopback, so every example works offline: the pet shop of
// examples/petstore.openapi.yaml under /v1 and the widget service of examples/widgets.actions.yaml under
// /widget-service/v1 (examples/shop.manifest.yaml points at both on port 4010). Both want the X-API-Key header
// with EXAMPLE_API_KEY (except for listing pets, which the spec leaves open). `npm start` runs it; on its own:
// `node examples/example-api.mjs` (port 4010, or $PORT).

import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

export const EXAMPLE_API_KEY = "demo-key";

export const DEFAULT_PORT = 4010;

export function startExampleApi({ port = 0, host = "127.0.0.1" } = {}) {
  const widgets = new Map([["w1", { id: "w1", name: "Sprocket", color: "red" }]]);
  const pets = new Map();
  let nextId = 1;
  const add = (pet) => {
    const stored = { id: nextId++, status: "available", tags: [], ...pet };
    pets.set(stored.id, stored);
    return stored;
  };
  add({ name: "Rex", kind: { species: "dog", goodBoy: true }, tags: ["friendly"] });
  add({ name: "Tom", kind: { species: "cat", indoor: true }, status: "pending" });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const send = (status, body) => {
      res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const body = async () => {
      let text = "";
      for await (const chunk of req) text += chunk;
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    };
    if (url.pathname.startsWith("/widget-service/v1/")) {
      if (req.headers["x-api-key"] !== EXAMPLE_API_KEY) return send(401, { error: "missing or wrong X-API-Key" });
      return widgetService({ req, path: url.pathname.slice("/widget-service/v1".length), query: url.searchParams, body, send, widgets });
    }
    const path = url.pathname.replace(/^\/v1/, "");
    const open = req.method === "GET" && path === "/pets";
    if (!open && req.headers["x-api-key"] !== EXAMPLE_API_KEY) return send(401, { error: "missing or wrong X-API-Key" });

    if (path === "/pets" && req.method === "GET") {
      const status = url.searchParams.get("status");
      const tags = url.searchParams.get("tags")?.split(",") ?? [];
      const limit = Number(url.searchParams.get("limit") ?? 20);
      const found = [...pets.values()].filter((p) => (!status || p.status === status) && tags.every((t) => p.tags.includes(t)));
      return send(200, found.reverse().slice(0, limit));
    }
    if (path === "/pets" && req.method === "POST") {
      const pet = await body();
      if (!pet || typeof pet.name !== "string" || typeof pet.kind?.species !== "string") return send(400, { error: "a pet needs a name and a kind with a species" });
      return send(201, add(pet));
    }
    const match = /^\/pets\/(\d+)$/.exec(path);
    if (match) {
      const id = Number(match[1]);
      if (!pets.has(id)) return send(404, { error: `no pet has id ${id}` });
      if (req.method === "GET") return send(200, pets.get(id));
      if (req.method === "DELETE") {
        pets.delete(id);
        return send(204);
      }
    }
    if (path === "/store/orders" && req.method === "POST") {
      const order = await body();
      if (!order || !pets.has(order.petId)) return send(400, { error: "petId must name an existing pet" });
      return send(201, { id: randomUUID(), petId: order.petId, quantity: order.quantity ?? 1, status: "placed" });
    }
    return send(404, { error: `no route for ${req.method} ${url.pathname}` });
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        url: `http://${host}:${address.port}/v1`,
        widgetsUrl: `http://${host}:${address.port}/widget-service/v1`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

/** The widget service of examples/widgets.actions.yaml. */
async function widgetService({ req, path, query, body, send, widgets }) {
  if (path === "/widgets" && req.method === "GET") {
    const words = (query.get("q") ?? "").toLowerCase();
    const color = query.get("color");
    return send(200, [...widgets.values()].filter((w) => w.name.toLowerCase().includes(words) && (!color || w.color === color)));
  }
  if (path === "/widgets" && req.method === "POST") {
    const widget = await body();
    if (!widget || typeof widget.name !== "string") return send(400, { error: "a widget needs a name" });
    const stored = { id: `w${widgets.size + 1}`, color: "red", ...widget };
    widgets.set(stored.id, stored);
    return send(201, stored);
  }
  const id = /^\/widgets\/([^/]+)$/.exec(path)?.[1];
  if (id !== undefined) {
    const key = decodeURIComponent(id);
    if (!widgets.has(key)) return send(404, { error: `no widget has id ${key}` });
    if (req.method === "GET") return send(200, widgets.get(key));
    if (req.method === "DELETE") {
      widgets.delete(key);
      return send(204);
    }
  }
  return send(404, { error: `no route for ${req.method} ${path}` });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const api = await startExampleApi({ port: Number(process.env.PORT ?? DEFAULT_PORT) });
  console.log(`Example API on loopback: pet shop ${api.url}, widget service ${api.widgetsUrl}; API key ${EXAMPLE_API_KEY}. Ctrl-C stops it.`);
}
