import { scimError } from "./errors";
import { parseFilter, type FilterTerm } from "./filter";

export const DEFAULT_COUNT = 100;
export const MAX_COUNT = 200;

export type ListParams = { terms: FilterTerm[]; startIndex: number; count: number; excludeMembers: boolean };

/**
 * A list request's query (RFC 7644 §3.4.2): `filter`, 1-based `startIndex` (below 1 counts as 1)
 * and `count` (negative counts as 0, more than MAX_COUNT is capped), `excludedAttributes=members`.
 */
export function parseListParams(url: URL): ListParams {
  const q = url.searchParams;
  const integer = (name: string, fallback: number) => {
    const raw = q.get(name);
    if (raw === null || raw === "") return fallback;
    if (!/^-?\d{1,9}$/.test(raw)) throw scimError(400, "invalidValue", `${name} is an integer (got "${raw.slice(0, 20)}").`);
    return Number(raw);
  };
  const filter = q.get("filter");
  const excluded = (q.get("excludedAttributes") ?? "").split(",").map((a) => a.trim().toLowerCase());
  return {
    terms: filter ? parseFilter(filter) : [],
    startIndex: Math.max(1, integer("startIndex", 1)),
    count: Math.min(MAX_COUNT, Math.max(0, integer("count", DEFAULT_COUNT))),
    excludeMembers: excluded.includes("members"),
  };
}
