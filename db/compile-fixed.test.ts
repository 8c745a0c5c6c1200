import { describe, expect, it } from "vitest";
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { compileFixed } from "./compile-fixed";
import { holds } from "./schema";

const drizzle = (q: SQL) => {
  const { sql: text, params } = new PgDialect().sqlToQuery(q);
  return { sql: text, params };
};

describe("compileFixed (the request path's statements compiled in one pass)", () => {
  it("writes the same text and values as drizzle's dialect", () => {
    const door = sql`agentdraft_admit(${"hash"}, ${null}, ${60}::int, ${1.5}::float8, ${true}, ${false})`;
    const admits = sql`(d.door is not null and not (d.door->>'revoked')::boolean)`;
    const select = sql`select agentdraft_place_hold(${JSON.stringify({ a: 1 })}::jsonb, ${"hold_x"}, ${sql.param(["cal_1", "cal_2"])}::text[],
      ${new Date(0)}::timestamptz, ${10n}::bigint, ${undefined}${sql.raw("'raw'")}) as out`;
    const statements = [
      sql`select 1`,
      select,
      sql`select d.door, ${admits} as admitted, case when ${admits} then (select s.out from (${select}) s) end as out from (select ${door} as door) d`,
      sql`with ${sql`a as (select ${1})`}, r as (${select}) select ${sql.join([sql`${1}`, sql`${"two"}`, sql.param(null)], sql`, `)} from r`,
      sql``,
    ];
    for (const q of statements) expect(compileFixed(q)).toEqual(drizzle(q));
  });

  it("leaves to drizzle what only drizzle knows how to write: columns, tables, lists, inlined values", () => {
    expect(compileFixed(sql`select ${holds.id} from ${holds}`)).toBeNull();
    expect(compileFixed(sql`select 1 where 2 in ${[1, 2]}`)).toBeNull();
    expect(compileFixed(sql`select ${"x"}`.inlineParams())).toBeNull();
    expect(compileFixed(sql`select ${sql`${{ some: "object" }}`}`)).toBeNull();
  });
});
