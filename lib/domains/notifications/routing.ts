import type { NotificationChannelRow, NotificationType } from "../../../db/schema";
import { zonedClock } from "../../platform/time/zoned";

type Rules = Pick<NotificationChannelRow, "notificationTypes" | "actionClasses" | "minAmount">;

/**
 * Whether a channel takes this notification: its type is one the channel wants and, for an
 * approval, the action class is on its list (no list: every class) and the amount reaches its
 * minimum (a request without an amount does not reach a minimum).
 */
export function routesTo(channel: Rules, type: NotificationType, approval?: { actionClass: string | null; amount: string | null }): boolean {
  if (!channel.notificationTypes.includes(type)) return false;
  if (!approval) return true;
  if (channel.actionClasses?.length && !(approval.actionClass && channel.actionClasses.includes(approval.actionClass))) return false;
  if (channel.minAmount !== null && (approval.amount === null || Number(approval.amount) < Number(channel.minAmount))) return false;
  return true;
}

type Quiet = Pick<NotificationChannelRow, "quietStartMinute" | "quietEndMinute" | "timeZone">;

/** Minutes after local midnight in a time zone. */
export function localMinute(at: Date, timeZone: string): number {
  const [hour, minute] = zonedClock(at, timeZone).split(":");
  return Number(hour) * 60 + Number(minute);
}

/**
 * When the channel's quiet period that `now` falls in ends, or null outside quiet hours. A period
 * may wrap past midnight (22:00–07:00); start equal to end means none.
 */
export function quietUntil(channel: Quiet, now: Date): Date | null {
  const { quietStartMinute: start, quietEndMinute: end } = channel;
  if (start === null || end === null || start === end) return null;
  const m = localMinute(now, channel.timeZone);
  const quiet = start < end ? m >= start && m < end : m >= start || m < end;
  if (!quiet) return null;
  const wait = (end - m + 1440) % 1440;
  const minuteStart = Math.floor(now.getTime() / 60_000) * 60_000;
  return new Date(minuteStart + wait * 60_000);
}

/** "22:00" → 1320; "" → null. */
export function parseClock(value: string | null | undefined): number | null {
  if (!value) return null;
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
}

export const formatClock = (minute: number | null) => (minute === null ? "" : `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`);
