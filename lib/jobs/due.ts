import { sql } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import type { WorkItem, WorkKind } from "./work";

type Row = { id: string; workspace_id: string; key: string | null; due_at: string | Date };

const toItem = (r: Row): WorkItem => ({ id: r.id, workspaceId: r.workspace_id, key: r.key, dueAt: new Date(r.due_at) });

/**
 * Items of a kind due at or before `before`, shared fairly between workspaces: at most
 * `perWorkspace` of any one workspace, taken round by round (each workspace's earliest first),
 * so a tenant with ten thousand due items cannot fill the page and starve the others.
 */
export async function dueItems(kind: WorkKind, o: { before: Date; limit: number; perWorkspace?: number }): Promise<WorkItem[]> {
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

/** The earliest due time of each kind that has any work at all, in one query (the embedded engine's timer). */
export async function nextDueTimes(kinds: WorkKind[]): Promise<Map<string, Date>> {
  if (kinds.length === 0) return new Map();
  const q = await queryable();
  const parts = kinds.map((k) => sql`select ${k.name}::text as kind, (select min(s.due_at) from (${k.source()}) as s) as due_at`);
  const { rows } = await q.execute<{ kind: string; due_at: string | Date | null }>(sql.join(parts, sql` union all `));
  return new Map(rows.filter((r) => r.due_at !== null).map((r) => [r.kind, new Date(r.due_at!)]));
}

/** Runs every item of a kind that is due now, `concurrency` at a time, until none is left (tests, CLI). */
export async function drainKind(kind: WorkKind, o: { concurrency?: number; workspaceId?: string } = {}): Promise<number> {
  let ran = 0;
  const seen = new Set<string>();
  for (;;) {
    const due = (await dueItems(kind, { before: new Date(), limit: 200 })).filter(
      (i) => !seen.has(i.id) && (!o.workspaceId || i.workspaceId === o.workspaceId),
    );
    if (due.length === 0) return ran;
    for (const i of due) seen.add(i.id);
    const queue = [...due];
    await Promise.all(
      Array.from({ length: Math.min(o.concurrency ?? 8, queue.length) }, async () => {
        for (let item = queue.shift(); item; item = queue.shift()) {
          await kind.run(item);
          ran++;
        }
      }),
    );
  }
}
