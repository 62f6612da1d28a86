// URL facts shared by loading and calling: which hosts are loopback (plain http is accepted for them only).

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1") return true;
  return /^127(\.\d{1,3}){3}$/.test(host);
}

/** Plain http is allowed only to loopback hosts unless the user opted out. */
export function isAllowedScheme(url: URL, allowInsecureHttp: boolean): boolean {
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && (allowInsecureHttp || isLoopbackHost(url.hostname));
}

export function isUrl(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
}
