// Which way a schema is read: what a tool takes (input: readOnly properties left out) or what it returns (output:
// writeOnly left out). The walker (convert.ts) and its keyword handlers both speak of it.

export type Direction = "input" | "output";
