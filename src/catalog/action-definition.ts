// A custom action definition as its file says it (schemas/action-definition.schema.json validates it): the API's base
// URL, its auth, and each action's method, path, schemas and where its arguments go. Read by the loader, made into
// tools by actions.ts, its arguments placed by action-arguments.ts.

import type { ParameterLocation, RateLimit } from "./types.js";

export type ActionAuth =
  | { type: "none" }
  | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string; value: string }
  | { type: "bearer"; token: string }
  | { type: "basic"; username: string; password: string }
  | { type: "oauth2"; tokenUrl: string; clientId: string; clientSecret: string; scopes?: string[] };

export interface ActionSpec {
  name: string;
  title?: string;
  description?: string;
  tags?: string[];
  method: string;
  path: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | boolean;
  /** A location, or a location and the name to use on the wire. */
  in?: Record<string, Placement | { in: Placement; name?: string }>;
  contentType?: string;
  headers?: Record<string, string>;
  rateLimit?: RateLimit;
  approval?: boolean;
}

export interface ActionDefinition {
  name: string;
  description?: string;
  version?: string | number;
  baseUrl: string;
  auth?: ActionAuth;
  headers?: Record<string, string>;
  rateLimit?: RateLimit;
  schemas?: Record<string, unknown>;
  actions: ActionSpec[];
}

type Placement = ParameterLocation | "body";
