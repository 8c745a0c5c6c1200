import { and, asc, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { queryable, transaction } from "../../../db/transaction";
import { notificationChannels, type MemberRow, type NotificationChannelRow, type NotificationType } from "../../../db/schema";
import { seal } from "../../platform/crypto/secret-box";
import { appendAudit } from "../../platform/audit/append-audit";
import { memberActor } from "../members";
import { assertRole } from "../members";
import { AppError, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";
import { page, type Pagination } from "../../platform/api/pagination";
import type { Actor } from "../../platform/actor";
import type { CreateChannelInput, UpdateChannelInput } from "./schemas";
import { checkChannelSecret } from "./check-secret";
import { scheduleWork } from "../../platform/jobs/schedule";
import { NOTIFICATION_DELIVERY_KIND } from "./queue-notifications";

const invalid = (field: string, message: string) => new AppError("validation_failed", `${field}: ${message}`, { errors: [{ field, message }] });

/** What the audit trail keeps of a channel's settings: never the secret. */
const auditable = (c: NotificationChannelRow) => ({
  kind: c.kind,
  name: c.name,
  slack_channel_id: c.slackChannelId,
  notification_types: c.notificationTypes,
  action_classes: c.actionClasses,
  min_amount: c.minAmount,
  quiet_start_minute: c.quietStartMinute,
  quiet_end_minute: c.quietEndMinute,
  time_zone: c.timeZone,
  include_evidence: c.includeEvidence,
  dm_approvers: c.dmApprovers,
  enabled: c.enabled,
});

function settingsOf(input: Omit<UpdateChannelInput, "channel_id" | "secret">, kind: NotificationChannelRow["kind"]) {
  if (input.notification_types.length === 0) throw invalid("notification_types", "choose at least one kind of notification");
  if (input.dm_approvers && kind !== "slack") throw invalid("dm_approvers", "direct messages are for Slack channels only");
  return {
    name: input.name,
    slackChannelId: kind === "slack" ? (input.slack_channel_id ?? null) : null,
    notificationTypes: [...new Set(input.notification_types)],
    actionClasses: input.action_classes,
    minAmount: input.min_amount === null ? null : String(input.min_amount),
    quietStartMinute: input.quiet_start,
    quietEndMinute: input.quiet_end,
    timeZone: input.time_zone,
    includeEvidence: input.include_evidence,
    dmApprovers: kind === "slack" && input.dm_approvers,
  };
}

/** Admins connect a channel. The secret is checked with the app where it can be (Slack's auth.test), then sealed. */
export async function createChannel(by: MemberRow, input: CreateChannelInput): Promise<NotificationChannelRow> {
  assertRole(by.role, "admin", "manage notification channels");
  const secret = await checkChannelSecret(input.kind, input.secret);
  const values = settingsOf(input, input.kind);
  if (input.kind === "slack" && !values.slackChannelId) throw invalid("slack_channel_id", "required for Slack");
  return transaction(async (tx) => {
    const [row] = await tx
      .insert(notificationChannels)
      .values({ id: newId("notificationChannel"), workspaceId: by.workspaceId, kind: input.kind, secretSealed: seal(secret), ...values })
      .returning();
    await appendAudit(tx, [{ actor: memberActor(by), action: "notification_channel.created", resource: { type: "notification_channel", id: row!.id }, agentId: null, summary: auditable(row!) }]);
    return row!;
  });
}

export async function updateChannel(by: MemberRow, input: UpdateChannelInput): Promise<NotificationChannelRow> {
  assertRole(by.role, "admin", "manage notification channels");
  const existing = await findChannel(by.workspaceId, input.channel_id);
  const values = settingsOf(input, existing.kind);
  if (existing.kind === "slack" && !values.slackChannelId) throw invalid("slack_channel_id", "required for Slack");
  const secret = input.secret ? await checkChannelSecret(existing.kind, input.secret) : null;
  return transaction(async (tx) => {
    const [row] = await tx
      .update(notificationChannels)
      .set({ ...values, ...(secret ? { secretSealed: seal(secret), failingSince: null, failedAt: null, lastError: null } : {}), updatedAt: new Date() })
      .where(and(eq(notificationChannels.id, existing.id), eq(notificationChannels.workspaceId, by.workspaceId)))
      .returning();
    if (!row) throw notFound("notification_channel", input.channel_id);
    await appendAudit(tx, [
      { actor: memberActor(by), action: "notification_channel.updated", resource: { type: "notification_channel", id: row.id }, agentId: null, summary: { ...auditable(row), secret_replaced: Boolean(secret) } },
    ]);
    return row;
  });
}

/** Disabling holds its queued messages (they are sent when it is enabled again); enabling clears its failed state. */
export async function setChannelEnabled(by: MemberRow, channelId: string, enabled: boolean): Promise<NotificationChannelRow> {
  assertRole(by.role, "admin", "manage notification channels");
  const existing = await findChannel(by.workspaceId, channelId);
  return transaction(async (tx) => {
    const [row] = await tx
      .update(notificationChannels)
      .set({ enabled, updatedAt: new Date(), ...(enabled ? { failedAt: null, failingSince: null } : {}) })
      .where(eq(notificationChannels.id, existing.id))
      .returning();
    await appendAudit(tx, [{ actor: memberActor(by), action: enabled ? "notification_channel.enabled" : "notification_channel.disabled", resource: { type: "notification_channel", id: existing.id }, agentId: null, summary: { name: existing.name } }]);
    if (enabled) {
      // Its held messages are due now: announce them, so the engine picks them up at once.
      const held = await tx.execute<{ id: string }>(sql`update notification_messages set next_attempt_at = least(next_attempt_at, now()) where channel_id = ${existing.id} and status = 'queued' returning id`);
      scheduleWork(NOTIFICATION_DELIVERY_KIND, held.rows.map((r) => ({ id: r.id, workspaceId: existing.workspaceId, key: existing.id, dueAt: new Date() })));
    }
    return row!;
  });
}

/** Deletes the channel, its secret and its messages. */
export async function deleteChannel(by: MemberRow, channelId: string): Promise<void> {
  assertRole(by.role, "admin", "manage notification channels");
  const existing = await findChannel(by.workspaceId, channelId);
  await transaction(async (tx) => {
    await tx.delete(notificationChannels).where(eq(notificationChannels.id, existing.id));
    await appendAudit(tx, [{ actor: memberActor(by), action: "notification_channel.deleted", resource: { type: "notification_channel", id: existing.id }, agentId: null, summary: { kind: existing.kind, name: existing.name } }]);
  });
}

/**
 * Escalation's targets (Approvals → Policies): the channels given take `approval.escalated`, the
 * others stop taking it. Audited per channel changed.
 */
export async function setEscalationChannels(by: MemberRow, channelIds: string[]): Promise<number> {
  assertRole(by.role, "admin", "change approval escalation");
  const wanted = new Set(channelIds);
  const all = await listAllChannels(by.workspaceId);
  for (const id of wanted) if (!all.some((c) => c.id === id)) throw notFound("notification_channel", id);
  let changed = 0;
  await transaction(async (tx) => {
    for (const c of all) {
      const has = c.notificationTypes.includes("approval.escalated");
      if (has === wanted.has(c.id)) continue;
      const types = has ? c.notificationTypes.filter((t) => t !== "approval.escalated") : [...c.notificationTypes, "approval.escalated" satisfies NotificationType];
      if (types.length === 0) throw invalid("channel_ids", `${c.name} would take no notifications at all: edit or disable it on the Channels page instead`);
      await tx.update(notificationChannels).set({ notificationTypes: types, updatedAt: new Date() }).where(eq(notificationChannels.id, c.id));
      await appendAudit(tx, [{ actor: memberActor(by), action: "notification_channel.updated", resource: { type: "notification_channel", id: c.id }, agentId: null, summary: { escalations: !has } }]);
      changed++;
    }
  });
  return changed;
}

export async function findChannel(workspaceId: string, id: string): Promise<NotificationChannelRow> {
  const q = await queryable();
  const [row] = await q.select().from(notificationChannels).where(and(eq(notificationChannels.id, id), eq(notificationChannels.workspaceId, workspaceId)));
  if (!row) throw notFound("notification_channel", id);
  return row;
}

/** Every channel of a workspace, oldest first (the web app; a workspace has a handful). */
export async function listAllChannels(workspaceId: string): Promise<NotificationChannelRow[]> {
  const q = await queryable();
  return q.select().from(notificationChannels).where(eq(notificationChannels.workspaceId, workspaceId)).orderBy(asc(notificationChannels.id)).limit(200);
}

/** A page of channels, newest first (GET /v1/notification-channels). */
export async function listChannels(actor: Actor, p: Pagination) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(notificationChannels.workspaceId, actor.workspaceId)];
  if (p.starting_after) where.push(lt(notificationChannels.id, p.starting_after));
  const rows = await q.select().from(notificationChannels).where(and(...where)).orderBy(desc(notificationChannels.id)).limit(p.limit + 1);
  return page(rows, p.limit);
}
