import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import type { WorkItem, WorkKind } from "./work";

type Row = { id: string; workspace_id: string; key: string | null; due_at: string | Date };

const toItem = (r: Row): WorkItem => ({ id: r.id, workspaceId: r.workspace_id, key: r.key, dueAt: new Date(r.due_at) });

/**
 * Items of a kind due at or before `before`, shared fairly between workspaces: at most
 * `perWorkspace` of any one workspace, taken round by round (each workspace's earliest first),
 * so a tenant with ten thousand due items cannot fill the page and starve the others.
 */
export async function dueItems(kind: Pick<WorkKind, "source">, o: { before: Date; limit: number; perWorkspace?: number }): Promise<WorkItem[]> {
  const q = await queryable();
  const { rows } = await q.execute<Row>(sql`
    select id, workspace_id, key, due_at from (
      select s.id, s.workspace_id, s.key, s.due_at,
             row_number() over (partition by s.workspace_id order by s.due_at, s.id) as rn
      from (${kind.source()}) as s
      where s.due_at <= ${o.before.toISOString()}::timestamptz
    ) as r
    where rn <= ${o.perWorkspace ?? o.limit}
    order by rn, due_at, id
    limit ${o.limit}`);
  return rows.map(toItem);
}

/** The earliest due time of each kind that has any work at all (only later than `after`, if given), in one query (the embedded engine's timer). */
export async function nextDueTimes(kinds: WorkKind[], after?: Date): Promise<Map<string, Date>> {
  if (kinds.length === 0) return new Map();
  const q = await queryable();
  const later = after ? sql` where s.due_at > ${after.toISOString()}::timestamptz` : sql``;
  const parts = kinds.map((k) => sql`select ${k.name}::text as kind, (select min(s.due_at) from (${k.source()}) as s${later}) as due_at`);
  const { rows } = await q.execute<{ kind: string; due_at: string | Date | null }>(sql.join(parts, sql` union all `));
  return new Map(rows.filter((r) => r.due_at !== null).map((r) => [r.kind, new Date(r.due_at!)]));
}

/**
 * Runs every item of a source that is due now, `concurrency` at a time, until none is left, and
 * counts the runs that did something (tests and the CLI; in the server each item is its own run).
 * An item is run at most once per drain, so one that stays due cannot spin it.
 */
export async function drainDue(source: WorkKind["source"], run: (id: string) => Promise<boolean>, o: { concurrency?: number } = {}): Promise<number> {
  let done = 0;
  const seen = new Set<string>();
  for (;;) {
    const queue = (await dueItems({ source }, { before: new Date(), limit: 200 })).filter((i) => !seen.has(i.id));
    if (queue.length === 0) return done;
    for (const i of queue) seen.add(i.id);
    await Promise.all(
      Array.from({ length: Math.min(o.concurrency ?? 8, queue.length) }, async () => {
        for (let item = queue.shift(); item; item = queue.shift()) if (await run(item.id)) done++;
      }),
    );
  }
}
