import type { NotificationChannelRow, NotificationType } from "../../../db/schema";
import { formatClock } from "./routing";

export type ChannelStatus = "healthy" | "failing" | "failed" | "disabled";

export const channelStatus = (c: NotificationChannelRow): ChannelStatus => (!c.enabled ? "disabled" : c.failedAt ? "failed" : c.failingSince ? "failing" : "healthy");

/** The API's view of a channel: its rules and health, never its secret. */
export function serializeChannel(c: NotificationChannelRow) {
  return {
    object: "notification_channel" as const,
    id: c.id,
    kind: c.kind,
    name: c.name,
    slack_channel_id: c.slackChannelId,
    notification_types: c.notificationTypes as NotificationType[],
    action_classes: c.actionClasses,
    min_amount: c.minAmount === null ? null : Number(c.minAmount),
    quiet_hours: c.quietStartMinute === null || c.quietEndMinute === null ? null : { start: formatClock(c.quietStartMinute), end: formatClock(c.quietEndMinute), time_zone: c.timeZone },
    include_evidence: c.includeEvidence,
    dm_approvers: c.dmApprovers,
    enabled: c.enabled,
    status: channelStatus(c),
    last_error: c.lastError,
    failing_since: c.failingSince?.toISOString() ?? null,
    last_success_at: c.lastSuccessAt?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
  };
}
