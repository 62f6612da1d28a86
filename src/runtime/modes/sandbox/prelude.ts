// What the engine runs before the script: a function that receives the two host functions and builds `api` and
// `console` from them, so the script can reach the host functions only through those wrappers. The wrappers turn
// every value into JSON text inside the sandbox (getters and proxies run there, under its limits) before it
// crosses. The clock is fixed at the run's start, to the second: a script knows today's date, and cannot time
// anything with it. No timers; WeakRef and FinalizationRegistry go too (they observe the garbage collector).

export const PRELUDE = `(function (hostCall, hostLog, toolsJson, now, maxLine) {
  "use strict";
  const stringify = JSON.stringify;
  const names = JSON.parse(toolsJson);
  const api = Object.create(null);
  for (const name of names) {
    const call = async function (args) {
      return hostCall(name, stringify(args === undefined ? {} : args));
    };
    Object.defineProperty(call, "name", { value: name });
    Object.defineProperty(api, name, { value: call, enumerable: true });
  }
  Object.freeze(api);
  const show = (value) => {
    if (typeof value === "string") return value;
    try {
      const text = stringify(value);
      if (text !== undefined) return text;
    } catch {}
    try {
      return String(value);
    } catch {
      return "[unprintable]";
    }
  };
  const writer = (prefix) => (...values) => {
    const text = prefix + values.map(show).join(" ");
    hostLog(text.length > maxLine ? text.slice(0, maxLine) : text);
  };
  const console = Object.freeze({
    log: writer(""),
    info: writer(""),
    debug: writer(""),
    warn: writer("warn: "),
    error: writer("error: "),
  });
  const RealDate = globalThis.Date;
  const FixedDate = function Date(...args) {
    if (!new.target) return new RealDate(now).toString();
    return args.length === 0 ? new RealDate(now) : new RealDate(...args);
  };
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = () => now;
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  Object.defineProperty(RealDate.prototype, "constructor", { value: FixedDate, writable: true, configurable: true });
  const fixed = { writable: false, enumerable: false, configurable: false };
  Object.defineProperty(globalThis, "api", { value: api, ...fixed });
  Object.defineProperty(globalThis, "console", { value: console, ...fixed });
  Object.defineProperty(globalThis, "Date", { value: FixedDate, writable: true, configurable: true });
  delete globalThis.WeakRef;
  delete globalThis.FinalizationRegistry;
})`;

/** The script as an async function's body; the first line is the wrapper's, so lines shift by one, columns not. */
export function wrapScript(code: string): string {
  return `(async () => {\n${code}\n})()`;
}

export const SCRIPT_FILE = "script.js";
export const LINE_OFFSET = 1;
