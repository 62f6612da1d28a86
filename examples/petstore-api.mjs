// A small in-memory implementation of examples/petstore.openapi.yaml on loopback, so the quick start works
// offline: `npm start` serves the example spec as an MCP server against it. Requires the X-API-Key header the
// spec's security scheme names (except for listing pets, which the spec leaves open).
// Run on its own (`node examples/petstore-api.mjs`, port 4010 or $PORT) to point other servers at it.

import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

export const EXAMPLE_API_KEY = "demo-key";

export function startPetstoreApi({ port = 0, host = "127.0.0.1" } = {}) {
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

  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        url: `http://${host}:${address.port}/v1`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const api = await startPetstoreApi({ port: Number(process.env.PORT ?? 4010) });
  console.log(`Example API (in-memory pet shop) on ${api.url}; its API key is ${EXAMPLE_API_KEY}. Ctrl-C stops it.`);
}
