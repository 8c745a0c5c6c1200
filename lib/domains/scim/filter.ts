import { parse, type Filter } from "scim2-parse-filter";
import { scimError } from "./errors";

/**
 * SCIM filters (RFC 7644 §3.4.2.2), parsed by the maintained `scim2-parse-filter`; of its
 * syntax tree this takes the subset identity providers send to find a resource before creating
 * it: `attr eq "value"` terms joined by `and` (Okta: `userName eq "a@b.c"`, Entra ID:
 * `externalId eq "…"`, `displayName eq "…"`), grouping allowed. Anything else (`or`, `not`,
 * other operators, value paths) is refused with 400 invalidFilter rather than half understood.
 */
export type FilterTerm = { attr: string; value: string | boolean | null };

export const MAX_FILTER_LENGTH = 1000;
const MAX_TERMS = 10;
const CORE_URN = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i;

const invalid = (detail: string) => scimError(400, "invalidFilter", `${detail} Supported: attribute eq "value", joined by and.`);

/** The filter's terms, each attribute lower-cased without the core schema's URN (`username`, `emails.value`). */
export function parseFilter(filter: string): FilterTerm[] {
  if (filter.length > MAX_FILTER_LENGTH) throw invalid(`The filter is longer than ${MAX_FILTER_LENGTH} characters.`);
  let tree: Filter;
  try {
    tree = parse(filter);
  } catch (err) {
    throw invalid(`The filter could not be read (${(err as Error).message}).`);
  }
  const terms: FilterTerm[] = [];
  const walk = (node: Filter): void => {
    if (node.op === "and") return node.filters.forEach(walk);
    if (node.op !== "eq") throw invalid(`Only eq terms joined by and are supported (got ${node.op}).`);
    const value = node.compValue;
    if (value !== null && typeof value !== "string" && typeof value !== "boolean") throw invalid(`${node.attrPath} eq needs a string, true, false or null.`);
    terms.push({ attr: node.attrPath.replace(CORE_URN, "").toLowerCase(), value });
    if (terms.length > MAX_TERMS) throw invalid(`The filter has more than ${MAX_TERMS} terms.`);
  };
  walk(tree);
  return terms;
}

/** The one string a term compares to, or invalidFilter naming the attribute. */
export function stringValue(term: FilterTerm): string {
  if (typeof term.value !== "string") throw invalid(`${term.attr} compares to a string.`);
  return term.value;
}
