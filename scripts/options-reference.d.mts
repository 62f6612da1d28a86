// Types for options-reference.mjs, so its test can import it (the typecheck does not read JavaScript).

/** docs/reference/options.md. */
export declare const REFERENCE: URL;
/** The reference as the options table, each command's --help and the settings schema say it today. */
export declare function optionsReference(): string;
