import { scimError } from "./errors";

/**
 * SCIM filters (RFC 7644 §3.4.2.2), the subset identity providers send to find a resource
 * before creating it: `attr eq "value"` terms joined by `and` (Okta: `userName eq "a@b.c"`,
 * Entra ID: `externalId eq "…"`, `displayName eq "…"`). The package the issue names,
 * scim2-parse-filter, is not installed here, so this small strict parser stands in: anything
 * else (`or`, `not`, other operators, brackets) is refused with 400 invalidFilter rather than
 * half understood.
 */
export type FilterTerm = { attr: string; value: string | boolean | null };

export const MAX_FILTER_LENGTH = 1000;
const MAX_TERMS = 10;
const CORE_URN = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i;
const TOKEN = /\s*(?:("(?:[^"\\]|\\.)*")|([A-Za-z][A-Za-z0-9_.:$-]*)|(\S))/y;

const invalid = (detail: string) => scimError(400, "invalidFilter", `${detail} Supported: attribute eq "value", joined by and.`);

/** The filter's terms, each attribute lower-cased without the core schema's URN (`username`, `emails.value`). */
export function parseFilter(filter: string): FilterTerm[] {
  if (filter.length > MAX_FILTER_LENGTH) throw invalid(`The filter is longer than ${MAX_FILTER_LENGTH} characters.`);
  const tokens: { text: string; quoted: boolean }[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < filter.length) {
    if (/^\s*$/.test(filter.slice(TOKEN.lastIndex))) break;
    const m = TOKEN.exec(filter);
    if (!m || m[3] !== undefined) throw invalid(`Unexpected "${m?.[3] ?? filter.slice(TOKEN.lastIndex)}" in the filter.`);
    tokens.push(m[1] !== undefined ? { text: m[1], quoted: true } : { text: m[2]!, quoted: false });
  }
  const terms: FilterTerm[] = [];
  for (let i = 0; ; ) {
    const [attr, op, value] = [tokens[i], tokens[i + 1], tokens[i + 2]];
    if (!attr || attr.quoted) throw invalid("The filter must start each term with an attribute name.");
    if (!op || op.quoted || op.text.toLowerCase() !== "eq") throw invalid(`Only the eq operator is supported (got ${op ? op.text : "nothing"} after ${attr.text}).`);
    if (!value) throw invalid(`${attr.text} eq needs a value.`);
    terms.push({ attr: attr.text.replace(CORE_URN, "").toLowerCase(), value: literal(value) });
    if (terms.length > MAX_TERMS) throw invalid(`The filter has more than ${MAX_TERMS} terms.`);
    i += 3;
    if (i === tokens.length) return terms;
    if (tokens[i]!.quoted || tokens[i]!.text.toLowerCase() !== "and") throw invalid(`Expected and, got ${tokens[i]!.text}.`);
    i += 1;
  }
}

function literal(token: { text: string; quoted: boolean }): string | boolean | null {
  if (token.quoted) {
    try {
      return JSON.parse(token.text) as string;
    } catch {
      throw invalid(`${token.text} is not a valid string.`);
    }
  }
  const word = token.text.toLowerCase();
  if (word === "true" || word === "false") return word === "true";
  if (word === "null") return null;
  throw invalid(`${token.text} is not a value: quote strings ("…").`);
}

/** The one string a term compares to, or invalidFilter naming the attribute. */
export function stringValue(term: FilterTerm): string {
  if (typeof term.value !== "string") throw invalid(`${term.attr} compares to a string.`);
  return term.value;
}
