import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { appendAudit } from "../../platform/audit/append-audit";
import { messageLabels, messages, threadLabels, threads, type MessageRow } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import type { Actor } from "../../platform/actor";

/** Labels derived from a message's state: never stored, and never set by hand except `unread`. */
export const SYSTEM_LABELS = ["unread", "sent", "draft", "spam"] as const;
export type SystemLabel = (typeof SYSTEM_LABELS)[number];
export const isSystemLabel = (l: string): l is SystemLabel => (SYSTEM_LABELS as readonly string[]).includes(l);

/** Label names: 1-50 characters, a letter or digit then letters, digits and `. _ - / :`; case-insensitive (stored lower case: the schema lower-cases before this check). */
export const LABEL_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9._\/:-]{0,49}$/;
export const LABEL_MAX_CHARS = 50;
/** Labels a person or agent may put on one message or one thread (system labels not counted). */
export const MAX_LABELS = 20;

type Target = { kind: "message"; id: string } | { kind: "thread"; id: string };

/** A message's system labels, from its row. */
export function systemLabelsOf(m: Pick<MessageRow, "direction" | "status" | "unread" | "security">): SystemLabel[] {
  const out: SystemLabel[] = [];
  if (m.direction === "inbound" && m.unread) out.push("unread");
  if (m.direction === "outbound" && m.status !== "pending_approval" && m.status !== "discarded") out.push("sent");
  if (m.status === "pending_approval") out.push("draft");
  if (m.direction === "inbound" && m.security.auth_failed) out.push("spam");
  return out;
}

/** The SQL a system label means, for one message row (`messages`). */
export function systemLabelCondition(label: SystemLabel): SQL {
  switch (label) {
    case "unread":
      return sql`(${messages.direction} = 'inbound' and ${messages.unread})`;
    case "sent":
      return sql`(${messages.direction} = 'outbound' and ${messages.status} not in ('pending_approval', 'discarded'))`;
    case "draft":
      return sql`(${messages.status} = 'pending_approval')`;
    case "spam":
      return sql`(${messages.direction} = 'inbound' and coalesce((${messages.security}->>'auth_failed')::boolean, false))`;
  }
}

/** `?label=` on messages: a system label's condition, else a stored label on the message. */
export function messageLabelFilter(label: string): SQL {
  if (isSystemLabel(label)) return systemLabelCondition(label);
  return sql`exists (select 1 from ${messageLabels} where ${messageLabels.messageId} = ${messages.id} and ${messageLabels.label} = ${label})`;
}

/** `?label=` on threads: a system label on any of its messages, else a stored label on the thread. */
export function threadLabelFilter(label: string): SQL {
  if (isSystemLabel(label)) {
    return sql`exists (select 1 from ${messages} where ${messages.threadId} = ${threads.id} and ${systemLabelCondition(label)})`;
  }
  return sql`exists (select 1 from ${threadLabels} where ${threadLabels.threadId} = ${threads.id} and ${threadLabels.label} = ${label})`;
}

/** Stored labels of these messages, by message id (one query). */
export async function labelsOfMessages(ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!ids.length) return out;
  const q = await queryable();
  const rows = await q.select({ id: messageLabels.messageId, label: messageLabels.label }).from(messageLabels).where(inArray(messageLabels.messageId, ids)).orderBy(messageLabels.label);
  for (const r of rows) out.set(r.id, [...(out.get(r.id) ?? []), r.label]);
  return out;
}

/** Every label of these threads (system labels from their messages, then stored ones), by thread id (two queries). */
export async function labelsOfThreads(ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!ids.length) return out;
  const q = await queryable();
  const flags = await q
    .select({
      id: messages.threadId,
      unread: sql<boolean>`bool_or(${systemLabelCondition("unread")})`,
      sent: sql<boolean>`bool_or(${systemLabelCondition("sent")})`,
      draft: sql<boolean>`bool_or(${systemLabelCondition("draft")})`,
      spam: sql<boolean>`bool_or(${systemLabelCondition("spam")})`,
    })
    .from(messages)
    .where(inArray(messages.threadId, ids))
    .groupBy(messages.threadId);
  for (const f of flags) out.set(f.id, SYSTEM_LABELS.filter((l) => f[l] === true));
  const rows = await q.select({ id: threadLabels.threadId, label: threadLabels.label }).from(threadLabels).where(inArray(threadLabels.threadId, ids)).orderBy(threadLabels.label);
  for (const r of rows) out.set(r.id, [...(out.get(r.id) ?? []), r.label]);
  return out;
}

export type LabelChange = { add: string[]; remove: string[] };

/**
 * Adds and removes labels on a message or a thread the caller has already been allowed to see.
 * Under the target's row lock, so concurrent changes serialize: each label is stored once and the
 * MAX_LABELS limit holds. `unread` marks received mail unread or read (a thread: its newest
 * received message, or all of them); the other system labels cannot be set or removed.
 */
export async function changeLabels(actor: Actor, target: Target, change: LabelChange): Promise<string[]> {
  const system = [...change.add, ...change.remove].filter((l) => isSystemLabel(l) && l !== "unread");
  if (system.length) {
    const message = `\`${system[0]}\` is a system label: it follows the mail's state and cannot be set or removed by hand (only \`unread\` can).`;
    throw new AppError("validation_failed", message, { errors: [{ field: change.add.includes(system[0]!) ? "add" : "remove", message }] });
  }
  const both = change.add.filter((l) => change.remove.includes(l));
  if (both.length) throw new AppError("validation_failed", `\`${both[0]}\` is both added and removed.`, { errors: [{ field: "remove", message: `\`${both[0]}\` is also in add` }] });
  const add = [...new Set(change.add.filter((l) => l !== "unread"))];
  const remove = [...new Set(change.remove.filter((l) => l !== "unread"))];
  const unread = change.add.includes("unread") ? true : change.remove.includes("unread") ? false : null;

  await transaction(async (tx) => {
    const table = target.kind === "message" ? messageLabels : threadLabels;
    const owner = target.kind === "message" ? messageLabels.messageId : threadLabels.threadId;
    if (target.kind === "message") {
      const [row] = await tx.select({ direction: messages.direction }).from(messages).where(eq(messages.id, target.id)).for("update");
      if (unread !== null && row?.direction !== "inbound") {
        throw new AppError("validation_failed", "`unread` applies to received mail only.", { errors: [{ field: change.add.includes("unread") ? "add" : "remove", message: "`unread` applies to received mail only" }] });
      }
    } else {
      await tx.select({ id: threads.id }).from(threads).where(eq(threads.id, target.id)).for("update");
    }
    const removed = remove.length ? (await tx.delete(table).where(and(eq(owner, target.id), inArray(table.label, remove))).returning({ label: table.label })).map((r) => r.label) : [];
    let added: string[] = [];
    if (add.length) {
      const existing = await tx.select({ label: table.label }).from(table).where(eq(owner, target.id));
      const after = new Set([...existing.map((e) => e.label), ...add]);
      if (after.size > MAX_LABELS) {
        const message = `A ${target.kind} takes at most ${MAX_LABELS} labels (system labels not counted): it has ${existing.length}, and these would make ${after.size}.`;
        throw new AppError("validation_failed", message, { limit: MAX_LABELS, errors: [{ field: "add", message }] });
      }
      const values = add.map((label) => ({ workspaceId: actor.workspaceId, label, ...(target.kind === "message" ? { messageId: target.id } : { threadId: target.id }) }));
      const inserted =
        target.kind === "message"
          ? await tx.insert(messageLabels).values(values as (typeof messageLabels.$inferInsert)[]).onConflictDoNothing().returning({ label: messageLabels.label })
          : await tx.insert(threadLabels).values(values as (typeof threadLabels.$inferInsert)[]).onConflictDoNothing().returning({ label: threadLabels.label });
      added = inserted.map((r) => r.label);
    }
    if (unread !== null) {
      if (target.kind === "message") await tx.update(messages).set({ unread }).where(eq(messages.id, target.id));
      else if (!unread) await tx.update(messages).set({ unread: false }).where(and(eq(messages.threadId, target.id), eq(messages.direction, "inbound"), eq(messages.unread, true)));
      else {
        const [newest] = await tx.select({ id: messages.id }).from(messages).where(and(eq(messages.threadId, target.id), eq(messages.direction, "inbound"))).orderBy(sql`${messages.id} desc`).limit(1);
        if (!newest) throw new AppError("validation_failed", "`unread` applies to received mail only, and this thread has none.", { errors: [{ field: "add", message: "the thread has no received mail" }] });
        await tx.update(messages).set({ unread: true }).where(eq(messages.id, newest.id));
      }
    }
    // What changed, audited; a change that changed nothing (a label added twice) is not.
    if (added.length || removed.length || unread !== null) {
      await appendAudit(tx, [
        {
          actor,
          action: `${target.kind}.labels_changed`,
          resource: { type: target.kind, id: target.id },
          summary: { added: added.sort(), removed: removed.sort(), ...(unread === null ? {} : { unread }) },
        },
      ]);
    }
  });
  return currentLabels(target);
}

/** A message's or thread's labels now: system labels first, then stored ones in name order. */
export async function currentLabels(target: Target): Promise<string[]> {
  if (target.kind === "thread") return (await labelsOfThreads([target.id])).get(target.id) ?? [];
  const q = await queryable();
  const [row] = await q.select().from(messages).where(eq(messages.id, target.id));
  return [...(row ? systemLabelsOf(row) : []), ...((await labelsOfMessages([target.id])).get(target.id) ?? [])];
}

/**
 * The inbox's own agent opened these messages (a key bound to that agent read one message or one
 * thread): received mail among them is no longer unread. One statement, a write only when some were.
 */
export async function markRead(actor: Actor, inboxAgentId: string, rows: MessageRow[]): Promise<void> {
  if (actor.type !== "key" || actor.agentId !== inboxAgentId) return;
  const ids = rows.filter((r) => r.direction === "inbound" && r.unread).map((r) => r.id);
  if (!ids.length) return;
  const q = await queryable();
  await q.update(messages).set({ unread: false }).where(and(inArray(messages.id, ids), eq(messages.unread, true)));
}
