// Retry-After (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date in one of its three forms (always GMT).
const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;
const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Za-z]{6,9}, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * How long a `Retry-After` header asks to wait, in milliseconds from `now` (epoch ms): 0 for a date already
 * past, undefined when the header is absent or says nothing this can read. Seconds may carry a fraction, which
 * the RFC does not allow but some servers send.
 */
export function retryAfterMs(headerValue: string | undefined, now: number): number | undefined {
  if (headerValue === undefined) return undefined;
  const text = headerValue.trim();
  if (DELAY_SECONDS.test(text)) {
    const ms = Math.ceil(Number(text) * 1000);
    return Number.isFinite(ms) ? ms : undefined;
  }
  let date: number;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) date = Date.parse(text);
  // asctime names no zone, and Date.parse would read it as local time: HTTP dates are GMT.
  else if (ASCTIME_DATE.test(text)) date = Date.parse(`${text.replace(/ {2}/, " ")} GMT`);
  else return undefined;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
