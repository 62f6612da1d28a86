// Where per-user upstream tokens live (issue 14's sign-in mode): one small, async interface, so one machine keeps
// them in an encrypted file (file-token-store.ts) and replicas can share another store behind the same four calls.
// Entries are per principal (the verified MCP caller) and scheme (the catalog's id of the upstream's scheme).

/** What a sign-in obtained for one principal and scheme: secrets, never logged. */
export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  /** When the access token expires (ms since the epoch); absent when the provider did not say. */
  expiresAt?: number;
  /** When it was obtained (ms since the epoch): it is refreshed a tenth of its lifetime (at most a minute) early. */
  obtainedAt?: number;
  /** The scopes granted, as the provider said. */
  scope?: string;
}

/** One entry's address. */
export interface TokenKey {
  principal: string;
  scheme: string;
}

export interface TokenStore {
  get(key: TokenKey): Promise<StoredTokens | undefined>;
  /** Replaces the entry (atomically: a reader sees the old tokens or the new, never a mix). */
  put(key: TokenKey & { tokens: StoredTokens }): Promise<void>;
  /** True when there was an entry. */
  delete(key: TokenKey): Promise<boolean>;
  /** The schemes a principal holds tokens for (sign-out drops them all). */
  list(principal: string): Promise<string[]>;
}

/** In this process's memory only (tests; a server that may forget sign-ins on restart). */
export class MemoryTokenStore implements TokenStore {
  private readonly entries = new Map<string, StoredTokens & TokenKey>();

  async get({ principal, scheme }: TokenKey): Promise<StoredTokens | undefined> {
    const entry = this.entries.get(JSON.stringify([principal, scheme]));
    if (!entry) return undefined;
    const { principal: _p, scheme: _s, ...tokens } = entry;
    return tokens;
  }

  async put({ principal, scheme, tokens }: TokenKey & { tokens: StoredTokens }): Promise<void> {
    this.entries.set(JSON.stringify([principal, scheme]), { ...tokens, principal, scheme });
  }

  async delete({ principal, scheme }: TokenKey): Promise<boolean> {
    return this.entries.delete(JSON.stringify([principal, scheme]));
  }

  async list(principal: string): Promise<string[]> {
    return [...this.entries.values()].filter((e) => e.principal === principal).map((e) => e.scheme);
  }
}
