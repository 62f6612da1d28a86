// The console's JSON API from the pages: same-origin fetches carrying the session cookie, and on every request the
// session's CSRF token, which the server requires of each POST.

let csrf = "";

export function setCsrf(token) {
  csrf = token;
}

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

export async function api(path, { body, signal } = {}) {
  const post = body !== undefined;
  const response = await fetch(`/console/api/${path}`, {
    method: post ? "POST" : "GET",
    credentials: "same-origin",
    headers: post ? { "content-type": "application/json", "x-console-csrf": csrf } : { "x-console-csrf": csrf },
    ...(post ? { body: JSON.stringify(body) } : {}),
    ...(signal ? { signal } : {}),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(json.error ?? `The console answered ${response.status}.`, response.status);
  return json;
}
