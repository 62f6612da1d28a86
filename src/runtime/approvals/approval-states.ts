// A call waiting for a person's approval, carried by the client instead of held by the server (MCP 2026-07-28's
// input_required, or any stateless HTTP): what resuming it needs, signed and expiring, so any replica with the same
// key can resume it and nothing else can. `base64url(JSON claims).base64url(HMAC-SHA-256)`.
// Signed, not encrypted: the claims hold the tool's name, a digest of the arguments (not the arguments), the
// caller's own principal, times, a nonce and the question's id, all of which the client knows already; what must
// not happen is that it changes them, and the MAC stops that.
// Not the SDK's createRequestStateCodec: the runtime does not import the SDK, and the codec takes one key (no
// rotation), counts expiry in seconds of its own clock and binds through one opaque tag, so a refusal could not say
// what changed. The HMAC and the constant-time comparison are node:crypto's.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { defined } from "../defined.js";
import { RANDOM_KEY_NOTICE, type StateKeys, stateKeys } from "./approval-state-keys.js";
import { MemoryUsedNonces, type UsedNonces } from "./used-nonces.js";

export interface StateClaims {
  tool: string;
  /** argumentDigest() of the validated arguments. */
  digest: string;
  /** The verified caller, or null without endpoint auth. */
  principal: string | null;
  /** Milliseconds since the epoch. */
  issuedAt: number;
  expiresAt: number;
  nonce: string;
  /** The key the approval question is asked under, whose answer resumes the call. */
  questionId: string;
}

/** Why a state does not resume a call: each says what the client can do. */
export type StateRefusal =
  | { kind: "forged" }
  | { kind: "expired" }
  | { kind: "replayed" }
  | { kind: "rebound"; what: "tool" | "principal" | "arguments" }
  | { kind: "unavailable" }
  | { kind: "unreachable" };

/** States longer than this are not read at all (ours are a few hundred characters). */
const MAX_STATE_CHARS = 16 * 1024;
const MAC_BYTES = 32;
const FORMAT = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

export interface RequestStatesOptions {
  /** --state-secret's values; none: a random key of this process. */
  secrets?: readonly string[];
  /** Where the secrets came from, for a refusal of a short one. */
  source?: string;
  /** How long a state may be answered (the approval timeout). */
  lifetimeMs: number;
  usedNonces?: UsedNonces;
  /** Milliseconds since the epoch (tests give a fake clock). */
  now?: () => number;
  /** Said once, at the first state signed with a random key. */
  log?: (line: string) => void;
}

export class RequestStates {
  private readonly keys: StateKeys;
  private readonly usedNonces: UsedNonces;
  private readonly now: () => number;
  private noticeDue: boolean;

  constructor(private readonly options: RequestStatesOptions) {
    this.keys = stateKeys(defined({ secrets: options.secrets, source: options.source }));
    this.now = options.now ?? Date.now;
    this.usedNonces = options.usedNonces ?? new MemoryUsedNonces({ now: this.now });
    this.noticeDue = this.keys.random;
  }

  /** A new state for a call about to ask: bound to its tool, arguments' digest and caller. */
  issue({ tool, digest, principal }: Pick<StateClaims, "tool" | "digest" | "principal">): {
    state: string;
    claims: StateClaims;
  } {
    if (this.noticeDue) {
      this.noticeDue = false;
      (this.options.log ?? ((line) => process.stderr.write(`${line}\n`)))(RANDOM_KEY_NOTICE);
    }
    const issuedAt = this.now();
    const nonce = randomBytes(16).toString("base64url");
    const claims: StateClaims = {
      tool,
      digest,
      principal,
      issuedAt,
      expiresAt: issuedAt + this.options.lifetimeMs,
      nonce,
      questionId: `approve_${nonce.slice(0, 8)}`,
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
    return { state: `${payload}.${mac(this.keys.keys[0]!, payload).toString("base64url")}`, claims };
  }

  /** The claims of a state this server signed and that has not expired; or why not. */
  open(state: unknown): { claims: StateClaims } | { refused: StateRefusal } {
    const parts = typeof state === "string" && state.length <= MAX_STATE_CHARS ? FORMAT.exec(state) : null;
    if (!parts) return { refused: { kind: "forged" } };
    const [, payload, macText] = parts as unknown as [string, string, string];
    const given = Buffer.from(macText, "base64url");
    // Only the one spelling of the MAC counts: base64url's spare bits make others that decode alike.
    if (given.length !== MAC_BYTES || given.toString("base64url") !== macText) return { refused: { kind: "forged" } };
    let authentic = false;
    for (const key of this.keys.keys) if (timingSafeEqual(mac(key, payload), given)) authentic = true;
    const claims = authentic ? readClaims(payload) : undefined;
    if (!claims) return { refused: { kind: "forged" } };
    if (this.now() >= claims.expiresAt) return { refused: { kind: "expired" } };
    return { claims };
  }

  /** The refusal when the call resumed is not the call the state was issued for. */
  rebound(claims: StateClaims, call: Pick<StateClaims, "tool" | "digest" | "principal">): StateRefusal | undefined {
    if (claims.tool !== call.tool) return { kind: "rebound", what: "tool" };
    if (claims.principal !== call.principal) return { kind: "rebound", what: "principal" };
    if (claims.digest !== call.digest) return { kind: "rebound", what: "arguments" };
    return undefined;
  }

  /** Marks the state used: the first time, nothing; after that, "replayed". */
  async consume(claims: StateClaims): Promise<StateRefusal | undefined> {
    const added = await this.usedNonces.add(claims.nonce, claims.expiresAt);
    if (added === "used") return { kind: "replayed" };
    if (added === "full") return { kind: "unavailable" };
    if (added === "unreachable") return { kind: "unreachable" };
    return undefined;
  }
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac("sha256", key).update(payload).digest();
}

/** Authentic claims are ours, but a state from another version of ours may hold others: checked, not trusted. */
function readClaims(payload: string): StateClaims | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const c = value as Record<string, unknown> | null;
  if (!c || typeof c !== "object") return undefined;
  const strings = ["tool", "digest", "nonce", "questionId"].every((key) => typeof c[key] === "string");
  const times = Number.isFinite(c.issuedAt) && Number.isFinite(c.expiresAt);
  const principal = c.principal === null || typeof c.principal === "string";
  return strings && times && principal ? (c as unknown as StateClaims) : undefined;
}
