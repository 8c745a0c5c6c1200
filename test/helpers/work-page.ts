import type { WorkItem } from "../../lib/platform/jobs/work";

/**
 * The store's page of due work, over items held in memory, as the real one reads it: at most
 * `perWorkspace` of each workspace (when given), round by round over workspaces, each one's
 * earliest first, up to `limit`.
 */
export function duePage(items: Iterable<WorkItem>, q: { before: Date; limit: number; perWorkspace?: number }): WorkItem[] {
  const byWs = new Map<string, WorkItem[]>();
  for (const i of [...items].filter((x) => x.dueAt <= q.before).sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime())) {
    const list = byWs.get(i.workspaceId) ?? [];
    if (list.length < (q.perWorkspace ?? q.limit)) list.push(i);
    byWs.set(i.workspaceId, list);
  }
  const out: WorkItem[] = [];
  for (let rn = 0; out.length < q.limit; rn++) {
    const round = [...byWs.values()].map((l) => l[rn]).filter((x): x is WorkItem => Boolean(x));
    if (round.length === 0) break;
    out.push(...round.slice(0, q.limit - out.length));
  }
  return out;
}
