// The requests answered before the SDK loads (early.ts), recognized as the SDK's schemas read them, or more
// strictly: whatever the SDK might refuse or read otherwise is left to it, so an early answer is always the one it
// would give.

export interface Message {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

export type Request<P> = Message & { id: string | number; params: P };

/** The one revision of the 2026-07-28 era the SDK serves, in `server/discover` and the `_meta` envelope. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

export function parse(text: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRequest(message: Message, method: string): message is Request<unknown> {
  const { id } = message;
  return message.jsonrpc === "2.0" && message.method === method && (typeof id === "string" || Number.isSafeInteger(id));
}

export function isInitialize(message: Message): message is Request<{ protocolVersion: string }> {
  if (!isRequest(message, "initialize") || !isPlainObject(message.params)) return false;
  const { protocolVersion, capabilities, clientInfo, ...rest } = message.params;
  return (
    Object.keys(rest).length === 0 &&
    typeof protocolVersion === "string" &&
    isPlainObject(capabilities) &&
    Object.values(capabilities).every(isPlainObject) &&
    isPlainObject(clientInfo) &&
    Object.entries(clientInfo).every(
      ([key, value]) => ["name", "version", "title"].includes(key) && typeof value === "string",
    ) &&
    typeof clientInfo.name === "string" &&
    typeof clientInfo.version === "string"
  );
}

/** A 2025-era tools/list: no params, or only a cursor. */
export function isListRequest(message: Message): message is Request<{ cursor?: string } | undefined> {
  if (!isRequest(message, "tools/list")) return false;
  if (message.params === undefined) return true;
  if (!isPlainObject(message.params)) return false;
  const { cursor, ...rest } = message.params;
  return Object.keys(rest).length === 0 && (cursor === undefined || typeof cursor === "string");
}

/**
 * A 2026-07-28 `server/discover`, or `tools/list` (with a cursor or not), carrying the era's `_meta` envelope
 * (protocol version, client info and capabilities) and nothing else. Either may open a connection of that era.
 */
export function isModernRequest(
  message: Message,
): message is Request<{ cursor?: string }> & { method: "server/discover" | "tools/list" } {
  const discover = isRequest(message, "server/discover");
  if (!(discover || isRequest(message, "tools/list")) || !isPlainObject(message.params)) return false;
  const { _meta, cursor, ...rest } = message.params;
  return (
    Object.keys(rest).length === 0 &&
    (cursor === undefined || (!discover && typeof cursor === "string")) &&
    isPlainObject(_meta) &&
    isEnvelope(_meta)
  );
}

function isEnvelope(meta: Record<string, unknown>): boolean {
  const {
    [PROTOCOL_VERSION_KEY]: version,
    [CLIENT_INFO_KEY]: info,
    [CLIENT_CAPABILITIES_KEY]: capabilities,
    ...rest
  } = meta;
  return (
    Object.keys(rest).length === 0 &&
    version === MODERN_PROTOCOL_VERSION &&
    isPlainObject(info) &&
    Object.entries(info).every(([key, value]) => INFO_KEYS.includes(key) && typeof value === "string") &&
    typeof info.name === "string" &&
    typeof info.version === "string" &&
    isPlainObject(capabilities) &&
    Object.entries(capabilities).every(
      ([key, value]) => isPlainObject(value) && Object.entries(value).every(CAPABILITIES[key] ?? (() => false)),
    )
  );
}

const INFO_KEYS = ["name", "version", "title", "websiteUrl", "description"];

/** The client capabilities of the 2026-07-28 envelope, each entry (key, value) of each as its schema takes it. */
const CAPABILITIES: Record<string, (entry: [string, unknown]) => boolean> = {
  roots: ([key, value]) => key === "listChanged" && typeof value === "boolean",
  sampling: ([key, value]) => (key === "context" || key === "tools") && isPlainObject(value),
  elicitation: ([key, value]) =>
    (key === "form" || key === "url") &&
    isPlainObject(value) &&
    (value.applyDefaults === undefined || typeof value.applyDefaults === "boolean"),
  experimental: ([, value]) => isPlainObject(value),
  extensions: ([, value]) => isPlainObject(value),
};

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
