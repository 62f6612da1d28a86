// The options a commander `--help` text lists: each one's flags, its long flag and its description, with the
// continuation lines of a wrapped description joined and commander's own notes (env, an empty default) set apart.

/**
 * `--help` text -> [{ flags, long, text, description, env?, defaultText? }], in the order shown, `--help` itself left
 * out: `text` as shown (but the env note), `description` without a trailing `(default: …)`, which commander adds for
 * a declared default and a help text may also end with.
 */
export function helpOptions(text) {
  const lines = text.split("\n");
  const start = lines.indexOf("Options:");
  if (start < 0) return [];
  const options = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "") break;
    const entry = /^ {2}(-\S.*?)(?: {2,}(.*))?$/.exec(line);
    if (entry) options.push({ flags: entry[1].trim(), text: entry[2] ?? "" });
    else if (options.length > 0) options.at(-1).text += ` ${line.trim()}`;
  }
  return options.filter((option) => option.flags !== "-h, --help").map(noted);
}

/** Commander appends `(default: …)` and `(env: VAR)` to the description: kept apart from the words. */
function noted({ flags, text }) {
  let shown = text.trim();
  const env = /\s*\(env: (\w+)\)$/.exec(shown);
  if (env) shown = shown.slice(0, env.index);
  const given = /\s*\(default: (.*)\)$/.exec(shown);
  const long = /--[\w-]+/.exec(flags)[0];
  return {
    flags,
    long,
    text: shown,
    description: given ? shown.slice(0, given.index) : shown,
    ...(env ? { env: env[1] } : {}),
    ...(given && given[1] !== "[]" ? { defaultText: given[1] } : {}),
  };
}
