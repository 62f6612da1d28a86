// Which `format` values a tools/list entry advertises. A client validates with the formats it knows and complains
// about the rest: the official SDK client compiles every output schema with Ajv and ajv-formats and prints
// `unknown format "unix-time" ignored …` for each unknown one (812 lines for Stripe's listing). So the listing keeps
// JSON Schema's own formats and OpenAPI's, as far as that validator knows them, and says any other in the
// description instead. The server's own validator reads the catalog's full schemas, so nothing is lost there.

/**
 * JSON Schema 2020-12's formats that ajv-formats knows (not idn-email, idn-hostname, iri, iri-reference) and
 * OpenAPI's own (int32 … password). Not ajv-formats' extras (url, iso-time, iso-date-time,
 * json-pointer-uri-fragment): no other validator need know them.
 */
export const ADVERTISED_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "uri-template",
  "uuid",
  "json-pointer",
  "relative-json-pointer",
  "regex",
  "int32",
  "int64",
  "float",
  "double",
  "byte",
  "binary",
  "password",
]);

/** A description that says the format the listing does not advertise: `… (format: unix-time)`. */
export function describeFormat({ description, format }: { description: unknown; format: string }): string {
  const said = `format: ${format}`;
  return typeof description === "string" && description.trim() !== "" ? `${description} (${said})` : said;
}
