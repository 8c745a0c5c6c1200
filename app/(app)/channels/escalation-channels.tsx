import Link from "next/link";
import { listAllChannels } from "@/lib/domains/notifications/channels";
import { ActionForm } from "../_components/action-form";
import { linkClass, secondaryButtonClass } from "../_components/ui";
import { setEscalationChannelsAction } from "./actions";

/** On Approvals → Policies: which notification channels escalations are posted to (their approval.escalated rule). */
export async function EscalationChannels({ workspaceId, canManage }: { workspaceId: string; canManage: boolean }) {
  const channels = await listAllChannels(workspaceId);
  if (channels.length === 0) {
    return (
      <p className="mt-4 text-sm text-slate-600">
        Escalations can also be posted to Slack, Teams or Discord: <Link href="/channels" className={linkClass}>connect a channel</Link>.
      </p>
    );
  }
  const targets = channels.filter((c) => c.notificationTypes.includes("approval.escalated"));
  if (!canManage) return <p className="mt-4 text-sm text-slate-700">Escalations are also posted to: {targets.length ? targets.map((c) => c.name).join(", ") : "no channel"}.</p>;
  return (
    <ActionForm action={setEscalationChannelsAction} submit="Save escalation channels" submitClassName={secondaryButtonClass} className="mt-4 border-t border-slate-100 pt-4">
      <fieldset className="mb-3">
        <legend className="mb-1 text-sm font-medium text-slate-800">Also post escalations to</legend>
        {channels.map((c) => (
          <label key={c.id} className="flex items-center gap-2 text-sm text-slate-800">
            <input type="checkbox" name="channel_ids" value={c.id} defaultChecked={c.notificationTypes.includes("approval.escalated")} className="h-4 w-4" />
            {c.name} <span className="text-slate-600">({c.kind})</span>
          </label>
        ))}
      </fieldset>
    </ActionForm>
  );
}
