// Mutations of valid arguments: what a confused or hostile model might send. Hostile strings go into the tool's
// parameters by location (path traversal and host escape into the path, CR/LF into headers and cookies, …) so
// that many stay schema-valid and reach the upstream, where the test checks what arrived; the rest break the
// schema (wrong types, missing required fields, extra fields, null, arrays for objects, deep nesting) and must
// be stopped before any request leaves.

import type { Tool } from "../../src/catalog/types.js";
import { isPlainObject, setOwn } from "./generate.js";
import type { Rng } from "./rng.js";

export const TRAVERSAL = [
  "..",
  ".",
  "../..",
  "../../../etc/passwd",
  "a/../../b",
  "/",
  "//",
  "%2F",
  "%2f..%2f..%2fadmin",
  "%2e%2e",
  "%2E",
  ".%2e",
  "..%2F..%2Fadmin",
  "..;/admin",
  "\\..\\..\\windows",
  "//evil.example",
  "//evil.example/steal",
  "http://evil.example",
  "https://evil.example/x?y=1",
  "@evil.example",
  "user@evil.example:80",
  "?admin=true",
  "#fragment",
  "a&admin=true",
  "a=b;c=d",
  "",
  " ",
  "%",
  "%zz",
  "%00",
  "%0d%0aX-Injected:%20yes",
  "．．",
  "%c0%ae%c0%ae",
];

export const CRLF = [
  "a\r\nX-Injected: yes",
  "a\nX-Injected: yes",
  "a\rX-Injected: yes",
  "x\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: evil.example\r\n\r\n",
  "a\u0000b",
  "tab\there",
  "\u0001\u007f",
  "a\u2028b\u2029c",
  "a\u0085b",
];

export const UNICODE = [
  "héllo wörld",
  "日本語のテキスト",
  "😀🚀👩‍👩‍👧",
  "\uD800",
  "a\uDFFFb",
  "\u202Etxt.exe",
  "zero\u200Bwidth",
  "ﬃ",
  "A\u0308",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "\uFEFFbom",
  "Ω≈ç√∫",
];

export const HOSTILE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "a\r\nX-Injected: yes",
  "../x",
  "a=b&c=d",
  "x]",
  "[y",
  "",
  "k;v",
  "😀",
];

const ALL_STRINGS = [...TRAVERSAL, ...CRLF, ...UNICODE];

export interface Mutated {
  kind: string;
  args: unknown;
}

interface Place {
  parent: Record<string, unknown> | unknown[];
  key: string | number;
  value: unknown;
}

type Mutator = (input: { args: Record<string, unknown>; tool: Tool; rng: Rng }) => unknown;

const MUTATORS: Array<[string, number, Mutator]> = [
  ["param-traversal", 5, ({ args, tool, rng }) => setParameter({ args, tool, rng, values: TRAVERSAL, prefer: "path" })],
  ["param-crlf", 4, ({ args, tool, rng }) => setParameter({ args, tool, rng, values: CRLF, prefer: "header" })],
  ["param-unicode", 2, ({ args, tool, rng }) => setParameter({ args, tool, rng, values: UNICODE })],
  ["param-huge", 1, ({ args, tool, rng }) => setParameter({ args, tool, rng, values: [huge(rng)] })],
  ["param-structure", 2, ({ args, tool, rng }) => setParameter({ args, tool, rng, values: structures(rng) })],
  ["strings-everywhere", 2, ({ args, rng }) => replaceStrings(args, rng)],
  ["hostile-keys", 1, ({ args, rng }) => hostileKeys(args, rng)],
  ["wrong-type", 3, ({ args, rng }) => replacePlace(args, rng, (value) => wrongType(value, rng))],
  ["drop-required", 2, ({ args, tool, rng }) => dropRequired(args, tool, rng)],
  ["extra-field", 2, ({ args, rng }) => extraField(args, rng)],
  ["null", 1, ({ args, rng }) => replacePlace(args, rng, () => null)],
  ["array-for-object", 1, ({ args, rng }) => arrayForObject(args, rng)],
  ["nested-junk", 1, ({ args, rng }) => replacePlace(args, rng, () => junk(rng, 0))],
  [
    "deep",
    0.3,
    ({ args, tool, rng }) => setParameter({ args, tool, rng, values: [deep(rng.pick([200, 2_000, 12_000]))] }),
  ],
  ["whole", 1, ({ args, rng }) => rng.pick(wholeReplacements(args))],
];
const TOTAL_WEIGHT = MUTATORS.reduce((sum, [, weight]) => sum + weight, 0);

/** One mutation of `args` (left untouched), chosen by weight. */
export function mutate({ args, tool, rng }: { args: Record<string, unknown>; tool: Tool; rng: Rng }): Mutated {
  let roll = rng.next() * TOTAL_WEIGHT;
  for (const [kind, weight, mutator] of MUTATORS) {
    roll -= weight;
    if (roll < 0) return { kind, args: mutator({ args: structuredClone(args), tool, rng }) };
  }
  const [kind, , mutator] = MUTATORS[0]!;
  return { kind, args: mutator({ args: structuredClone(args), tool, rng }) };
}

/** A parameter of the tool (of `prefer`'s location when it has one, half the time) set to one of `values`. */
function setParameter({
  args,
  tool,
  rng,
  values,
  prefer,
}: {
  args: Record<string, unknown>;
  tool: Tool;
  rng: Rng;
  values: unknown[];
  prefer?: "path" | "header";
}): Record<string, unknown> {
  const { parameters, body } = tool.operation;
  const all = [...parameters.path, ...parameters.query, ...parameters.header, ...parameters.cookie];
  const preferred =
    prefer === "header" ? [...parameters.header, ...parameters.cookie] : prefer ? parameters[prefer] : [];
  const names = (preferred.length > 0 && rng.bool(0.6) ? preferred : all).map((p) => p.argument);
  if (body?.argument && rng.bool(0.2)) names.push(body.argument);
  if (names.length === 0) {
    // No parameters: put the value somewhere in the body, or beside everything else.
    return replacePlace(args, rng, () => rng.pick(values)) as Record<string, unknown>;
  }
  const count = rng.bool(0.3) ? Math.min(names.length, rng.int(2, 4)) : 1;
  for (const name of rng.sample(names, count)) setOwn(args, name, rng.pick(values));
  return args;
}

function huge(rng: Rng): string {
  const unit = rng.pick(["A", "é", "😀", "../", "%2F", "a\r\n"]);
  return unit.repeat(Math.ceil(rng.pick([20_000, 100_000, 1_000_000]) / unit.length));
}

function structures(rng: Rng): unknown[] {
  return [
    [rng.pick(TRAVERSAL), rng.pick(CRLF)],
    { [rng.pick(HOSTILE_KEYS)]: rng.pick(ALL_STRINGS) },
    { a: { b: { c: rng.pick(TRAVERSAL) } } },
    [[rng.pick(TRAVERSAL)], { x: rng.pick(CRLF) }],
    [],
    {},
    [null, rng.pick(UNICODE)],
    Object.fromEntries([["__proto__", { polluted: true }]]),
  ];
}

function deep(depth: number): unknown {
  let value: unknown = "../bottom";
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

function junk(rng: Rng, depth: number): unknown {
  if (depth > 5 || rng.bool(0.3)) return rng.pick([rng.pick(ALL_STRINGS), 0, -1, 1e308, -0, true, null, ""]);
  if (rng.bool(0.5)) return Array.from({ length: rng.int(0, 4) }, () => junk(rng, depth + 1));
  const out: Record<string, unknown> = {};
  for (let i = rng.int(0, 4); i > 0; i--)
    setOwn(out, rng.pick([...HOSTILE_KEYS, "x", "y", "id"]), junk(rng, depth + 1));
  return out;
}

function wrongType(value: unknown, rng: Rng): unknown {
  const options: unknown[] = ["a string", 42, -3.5, true, null, [1, "two"], { nested: "object" }, 2 ** 53 + 2, ""];
  const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  const different = options.filter((o) => kind(o) !== kind(value));
  return rng.pick(different);
}

/** Every (parent, key) inside `root`, up to a depth and a count. */
function places(root: unknown, limit = 300): Place[] {
  const found: Place[] = [];
  const walk = (value: unknown, depth: number) => {
    if (depth > 8 || found.length >= limit) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        found.push({ parent: value, key: i, value: item });
        walk(item, depth + 1);
      });
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        found.push({ parent: value, key, value: item });
        walk(item, depth + 1);
      }
    }
  };
  walk(root, 0);
  return found;
}

function assign(place: Pick<Place, "parent" | "key">, value: unknown): void {
  if (Array.isArray(place.parent)) place.parent[place.key as number] = value;
  else setOwn(place.parent, String(place.key), value);
}

function replacePlace(args: Record<string, unknown>, rng: Rng, make: (value: unknown) => unknown): unknown {
  const found = places(args);
  if (found.length === 0) {
    setOwn(args, rng.pick(["body", "id", "x"]), make(undefined));
    return args;
  }
  const place = rng.pick(found);
  assign(place, make(place.value));
  return args;
}

function replaceStrings(args: Record<string, unknown>, rng: Rng): unknown {
  const found = places(args).filter((p) => typeof p.value === "string");
  if (found.length === 0) return replacePlace(args, rng, () => rng.pick(ALL_STRINGS));
  for (const place of found) assign(place, rng.pick(ALL_STRINGS));
  return args;
}

function hostileKeys(args: Record<string, unknown>, rng: Rng): unknown {
  const objects = [args, ...places(args).map((p) => p.value)].filter(isPlainObject);
  const target = rng.pick(objects);
  setOwn(target, rng.pick(HOSTILE_KEYS), rng.pick([...ALL_STRINGS, { nested: rng.pick(CRLF) }]));
  return args;
}

function dropRequired(args: Record<string, unknown>, tool: Tool, rng: Rng): unknown {
  const required = Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : [];
  const present = required.filter((key) => Object.hasOwn(args, key));
  if (present.length > 0) {
    delete args[rng.pick(present)];
    return args;
  }
  const nested = places(args).filter((p) => !Array.isArray(p.parent));
  if (nested.length === 0) return extraField(args, rng);
  const place = rng.pick(nested);
  delete (place.parent as Record<string, unknown>)[place.key as string];
  return args;
}

function extraField(args: Record<string, unknown>, rng: Rng): unknown {
  const objects = [args, ...places(args).map((p) => p.value)].filter(isPlainObject);
  setOwn(rng.pick(objects), rng.pick(["__extra", "unexpected", ...HOSTILE_KEYS]), junk(rng, 2));
  return args;
}

function arrayForObject(args: Record<string, unknown>, rng: Rng): unknown {
  const objects = places(args).filter((p) => isPlainObject(p.value));
  if (objects.length === 0 || rng.bool(0.3)) return [args];
  const place = rng.pick(objects);
  assign(place, [place.value]);
  return args;
}

function wholeReplacements(args: Record<string, unknown>): unknown[] {
  return [
    null,
    undefined,
    42,
    "a string",
    "..",
    true,
    [],
    [args],
    { "": "" },
    Object.fromEntries([["__proto__", { admin: true }]]),
    { a: [1, { b: null }], c: "..\r\n", d: { e: { f: [[["//evil.example"]]] } } },
  ];
}
