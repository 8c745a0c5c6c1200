import { NOTIFICATION_TYPES, type NotificationChannelRow } from "@/db/schema";
import { formatClock } from "@/lib/domains/notifications/routing";
import { Field, inputClass } from "../_components/ui";

export const TYPE_LABELS: Record<(typeof NOTIFICATION_TYPES)[number], string> = {
  "approval.requested": "Approval requested",
  "approval.escalated": "Approval escalated",
  "approval.resolved": "Approval decided or expired",
  "webhook_endpoint.disabled": "Webhook endpoint disabled",
  "calendar.sync_failed": "Calendar sync failed",
  "event.moved_externally": "Meeting moved by a person",
  "event.cancelled_externally": "Meeting deleted or declined by a person",
  "event.conflicted": "Meeting double-booked",
};
const DEFAULT_TYPES: string[] = ["approval.requested", "approval.escalated", "approval.resolved", "webhook_endpoint.disabled"];

/** The routing rules, quiet hours and content settings a channel form shares (ids unique per form through `prefix`). */
export function RuleFields({ prefix, channel, slack }: { prefix: string; channel?: NotificationChannelRow; slack: boolean }) {
  const id = (name: string) => `${prefix}-${name}`;
  const types = channel?.notificationTypes ?? DEFAULT_TYPES;
  return (
    <>
      <fieldset className="sm:col-span-2">
        <legend className="mb-1 text-sm font-medium text-slate-800">Send</legend>
        <div className="grid gap-1 sm:grid-cols-2">
          {NOTIFICATION_TYPES.map((t) => (
            <label key={t} className="flex items-center gap-2 text-sm text-slate-800">
              <input type="checkbox" name="notification_types" value={t} defaultChecked={types.includes(t)} className="h-4 w-4" />
              {TYPE_LABELS[t]}
            </label>
          ))}
        </div>
      </fieldset>
      <Field label="Only these action classes (comma-separated; empty: all)" name={id("action_classes")}>
        <input id={id("action_classes")} name="action_classes" maxLength={1000} defaultValue={channel?.actionClasses?.join(", ") ?? ""} placeholder="refund, payout" className={inputClass} />
      </Field>
      <Field label="Only from this amount (empty: any)" name={id("min_amount")}>
        <input id={id("min_amount")} name="min_amount" type="number" min="0" step="0.01" defaultValue={channel?.minAmount === null || !channel ? "" : Number(channel.minAmount)} className={inputClass} />
      </Field>
      <Field label="Quiet hours from" name={id("quiet_start")} hint="New messages wait until quiet hours end.">
        <input id={id("quiet_start")} name="quiet_start" type="time" defaultValue={formatClock(channel?.quietStartMinute ?? null)} className={inputClass} />
      </Field>
      <Field label="Quiet hours until" name={id("quiet_end")}>
        <input id={id("quiet_end")} name="quiet_end" type="time" defaultValue={formatClock(channel?.quietEndMinute ?? null)} className={inputClass} />
      </Field>
      <Field label="Time zone" name={id("time_zone")}>
        <input id={id("time_zone")} name="time_zone" list="time-zones" maxLength={64} defaultValue={channel?.timeZone ?? "UTC"} className={inputClass} />
      </Field>
      <div className="flex flex-col justify-end gap-2 sm:col-span-2">
        <label className="flex items-start gap-2 text-sm text-slate-800">
          <input type="checkbox" name="include_evidence" defaultChecked={channel?.includeEvidence ?? false} className="mt-0.5 h-4 w-4" />
          <span>Include the evidence of approval requests <span className="text-slate-600">(off by default: evidence may hold customer data)</span></span>
        </label>
        {slack ? (
          <label className="flex items-start gap-2 text-sm text-slate-800">
            <input type="checkbox" name="dm_approvers" defaultChecked={channel?.dmApprovers ?? false} className="mt-0.5 h-4 w-4" />
            <span>Also message each approver directly <span className="text-slate-600">(members whose Slack account has the same email; needs users:read.email)</span></span>
          </label>
        ) : null}
      </div>
    </>
  );
}

export function TimeZones() {
  return (
    <datalist id="time-zones">
      {Intl.supportedValuesOf("timeZone").map((tz) => (
        <option key={tz} value={tz} />
      ))}
    </datalist>
  );
}
