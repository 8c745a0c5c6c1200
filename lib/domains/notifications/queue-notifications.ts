import { and, eq, inArray, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import { approvals, members, notificationChannels, notificationMessages, type NotificationType } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { scheduleWork } from "../../platform/jobs/schedule";
import { routesTo } from "./routing";

/** The work kind that delivers one queued notification message (lib/composition/job-kinds.ts), keyed by channel. */
export const NOTIFICATION_DELIVERY_KIND = "notification.deliver";

/** Queued messages of enabled channels, keyed by channel (one failing or rate-limited channel delays only itself). */
export const queuedNotificationsSource = () => sql`
  select m.id, m.workspace_id, m.channel_id as key, m.next_attempt_at as due_at
  from notification_messages m join notification_channels c on c.id = m.channel_id
  where m.status = 'queued' and c.enabled`;

export const APPROVAL_NOTIFICATION_TYPES: readonly NotificationType[] = ["approval.requested", "approval.escalated", "approval.resolved"];
/** Alerts about the same subject can happen again (an endpoint re-enabled and disabled anew, a meeting moved twice): a past message is re-armed. */
const REPEATABLE: readonly NotificationType[] = ["webhook_endpoint.disabled", "calendar.sync_failed", "event.moved_externally", "event.cancelled_externally", "event.conflicted"];
/** Who gets a Slack direct message about a request, when the channel asks for it: the members who can decide. */
export const DM_ROLES = ["owner", "admin", "approver"] as const;

export type NotificationCause = { workspaceId: string; type: NotificationType; subject: string };

/**
 * Queues the messages a change causes, inside the transaction that makes the change (a crash
 * after the commit delays them, never loses them; a rollback sends nothing), one row per channel
 * that takes it (and per approver for Slack direct messages), and announces them after commit.
 * Rows hold the subject's id, not its content. A resolution or escalation also goes to every
 * channel and recipient that was told of the request, so that message is updated. Queuing twice
 * adds nothing. Returns how many messages were queued.
 */
export async function queueNotifications(tx: Transaction, cause: NotificationCause): Promise<number> {
  const channels = await tx
    .select()
    .from(notificationChannels)
    .where(and(eq(notificationChannels.workspaceId, cause.workspaceId), eq(notificationChannels.enabled, true)));
  if (channels.length === 0) return 0;
  const isApproval = APPROVAL_NOTIFICATION_TYPES.includes(cause.type);
  const [approval] = isApproval
    ? await tx.select({ actionClass: approvals.actionClass, amount: approvals.amount }).from(approvals).where(and(eq(approvals.id, cause.subject), eq(approvals.workspaceId, cause.workspaceId)))
    : [];
  if (isApproval && !approval) return 0;
  const told =
    isApproval && cause.type !== "approval.requested"
      ? await tx
          .select({ channelId: notificationMessages.channelId, recipient: notificationMessages.recipient })
          .from(notificationMessages)
          .where(and(eq(notificationMessages.workspaceId, cause.workspaceId), eq(notificationMessages.subjectId, cause.subject), eq(notificationMessages.type, "approval.requested")))
      : [];
  const dms =
    cause.type === "approval.requested" && channels.some((c) => c.kind === "slack" && c.dmApprovers)
      ? await tx.select({ id: members.id }).from(members).where(and(eq(members.workspaceId, cause.workspaceId), inArray(members.role, [...DM_ROLES])))
      : [];

  const at = new Date();
  const rows = channels.flatMap((channel) => {
    const recipients = new Set<string>();
    const routed = routesTo(channel, cause.type, approval);
    if (routed) recipients.add("");
    if (routed && cause.type === "approval.requested" && channel.kind === "slack" && channel.dmApprovers) for (const m of dms) recipients.add(m.id);
    for (const t of told) if (t.channelId === channel.id) recipients.add(t.recipient);
    return [...recipients].map((recipient) => ({
      id: newId("notificationMessage"),
      workspaceId: cause.workspaceId,
      channelId: channel.id,
      subjectId: cause.subject,
      type: cause.type,
      recipient,
      nextAttemptAt: at,
    }));
  });
  if (rows.length === 0) return 0;
  const insert = tx.insert(notificationMessages).values(rows);
  const queued = await (REPEATABLE.includes(cause.type)
    ? insert.onConflictDoUpdate({
        target: [notificationMessages.channelId, notificationMessages.subjectId, notificationMessages.type, notificationMessages.recipient],
        set: { status: "queued", attempts: 0, nextAttemptAt: at, lastError: null, updatedAt: at },
        setWhere: sql`${notificationMessages.status} <> 'queued'`,
      })
    : insert.onConflictDoNothing()
  ).returning({ id: notificationMessages.id, channelId: notificationMessages.channelId });
  scheduleWork(NOTIFICATION_DELIVERY_KIND, queued.map((r) => ({ id: r.id, workspaceId: cause.workspaceId, key: r.channelId, dueAt: at })));
  return queued.length;
}
