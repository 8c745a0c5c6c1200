import { describe, expect, it } from "vitest";
import journal from "./migrations/meta/_journal.json";

// drizzle's migrator applies a migration only when its journal time (`when`) is later than the
// time of the last migration the database has applied. A migration stamped earlier than one before
// it (a hand-edited stamp, or a branch merged after a later one) would be skipped for good on
// every database already past it, and a fresh database would never show it.
describe("the migration journal", () => {
  it("stamps every migration later than the one before it, in file order", () => {
    const entries = journal.entries;
    expect(entries.map((e) => e.idx)).toEqual(entries.map((_, i) => i));
    for (const [i, e] of entries.entries()) expect(e.tag.startsWith(String(i).padStart(4, "0") + "_"), e.tag).toBe(true);
    const late = entries.filter((e, i) => i > 0 && e.when <= entries[i - 1]!.when).map((e) => e.tag);
    expect(late, "stamped no later than the migration before it: drizzle would skip these on a database past that one").toEqual([]);
  });
});
