// What `inspect` and `validate` report about a catalog: every tool with its route, class and token cost, the
// whole tools/list size, the credentials it needs, and the diagnostics. Plain data; the CLI renders it.

import { approximateTokens, Listing } from "../catalog/listing.js";
import { credentialVariables, describeCredential } from "../catalog/security.js";
import type { Catalog, CredentialScheme, Diagnostic, SideEffect, SourceInfo } from "../catalog/types.js";
import { type Budget, contextBudget } from "./budget.js";

export interface ToolSummary {
  name: string;
  title: string;
  method: string;
  path: string;
  serverUrl: string;
  effect: SideEffect;
  approval: boolean;
  source: string;
  operationId?: string;
  tags: string[];
  /** Bytes of its tools/list entry, and bytes / 4. */
  bytes: number;
  tokens: number;
}

export interface CredentialSummary {
  id: string;
  type: CredentialScheme["type"];
  detail: string;
  variables: string[];
  usedBy: number;
  /** How its value is obtained: `environment` (or settings values), or a per-user mode (forwarded, exchange, …). */
  mode: string;
  /** For a per-user mode, how, in words: `forwarded from each caller's X-Upstream-Key header`. */
  obtained?: string;
}

/** A scheme's per-user mode by scheme id, as the settings file sets it (runtime/credentials/user-credential-modes.ts). */
export type CredentialModes = Readonly<Record<string, { mode: string; description: string }>>;

export interface InspectReport {
  sources: SourceInfo[];
  tools: ToolSummary[];
  totals: { tools: number; bytes: number; tokens: number };
  /** The largest tools and tags, and advice when tools/list is over the context budget. */
  budget: Budget;
  credentials: CredentialSummary[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

export function inspectCatalog(
  catalog: Catalog,
  { outputSchema = true, modes = {} }: { outputSchema?: boolean; modes?: CredentialModes } = {},
): InspectReport {
  const listing = new Listing(catalog, { outputSchema });
  const tools = catalog.tools.map((tool): ToolSummary => {
    const bytes = listing.bytes(tool);
    return {
      name: tool.name,
      title: tool.title,
      method: tool.operation.method,
      path: tool.operation.path,
      serverUrl: tool.operation.serverUrl,
      effect: tool.effect,
      approval: tool.approval === true,
      source: tool.source,
      ...(tool.origin.operationId !== undefined ? { operationId: tool.origin.operationId } : {}),
      tags: tool.origin.tags,
      bytes,
      tokens: approximateTokens(bytes),
    };
  });
  const bytes = listing.totalBytes(catalog.tools);
  const tokens = approximateTokens(bytes);
  const usage = new Map<string, number>();
  for (const tool of catalog.tools) {
    const ids = new Set(tool.operation.security.flatMap((requirement) => requirement.schemes.map((s) => s.id)));
    for (const id of ids) usage.set(id, (usage.get(id) ?? 0) + 1);
  }
  const credentials = Object.entries(catalog.credentials).map(([id, credential]): CredentialSummary => {
    const perUser = Object.hasOwn(modes, id) && modes[id]!.mode !== "environment" ? modes[id] : undefined;
    return {
      id,
      type: credential.type,
      detail: describeCredential(credential),
      variables: perUser ? [] : credentialVariables(credential),
      usedBy: usage.get(id) ?? 0,
      mode: perUser?.mode ?? "environment",
      ...(perUser ? { obtained: perUser.description } : {}),
    };
  });
  return {
    sources: catalog.sources,
    tools,
    totals: { tools: tools.length, bytes, tokens },
    budget: contextBudget({ tools, tokens }),
    credentials,
    errors: catalog.diagnostics.filter((d) => d.severity === "error"),
    warnings: catalog.diagnostics.filter((d) => d.severity === "warning"),
  };
}
