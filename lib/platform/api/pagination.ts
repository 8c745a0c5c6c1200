import { z } from "zod";
import { ID_SHAPE } from "./input-guards";

export const paginationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  starting_after: z.string().regex(ID_SHAPE, "an id from the previous page (the last item's id)").optional(),
});
export type Pagination = z.infer<typeof paginationQuery>;

/** Fetch `limit + 1` rows; this splits them into the page and whether more follow. */
export function page<T>(rows: T[], limit: number): { items: T[]; hasMore: boolean } {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** Query parameters as a plain object for zod (repeated keys become arrays). */
export function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}
