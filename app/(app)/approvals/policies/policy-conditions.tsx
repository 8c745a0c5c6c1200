import type { listPolicies } from "@/lib/domains/approvals/policies";
import { Field, inputClass } from "../../_components/ui";

/** The optional conditions of a rule: mail (`email.send`), holds (`hold.place`), leases (`lease.acquire`), and taint. */
export function PolicyConditionFields() {
  return (
    <>
      <Field label="Only mail to this domain (email.send)" name="recipient_domain">
        <input id="recipient_domain" name="recipient_domain" maxLength={253} className={inputClass} placeholder="client.example" />
      </Field>
      <Field label="Only from this inbox (email.send)" name="inbox_id">
        <input id="inbox_id" name="inbox_id" maxLength={64} className={inputClass} placeholder="inbox_..." />
      </Field>
      <Field label="Only at or above priority (hold.place, lease.acquire)" name="min_priority">
        <input id="min_priority" name="min_priority" type="number" min="0" max="100" className={inputClass} />
      </Field>
      <Field label="Only leases on this resource (lease.acquire; deploy:* for a prefix)" name="resource">
        <input id="resource" name="resource" maxLength={200} className={inputClass} placeholder="deploy:*" />
      </Field>
      <label className="flex items-center gap-2 text-sm text-slate-800">
        <input type="checkbox" name="new_recipients" /> Only mail to untrusted recipients: not a member, not a trusted domain, never mailed before (email.send)
      </label>
      <label className="flex items-center gap-2 text-sm text-slate-800 sm:col-span-2">
        <input type="checkbox" name="untrusted_trace" /> Only while the agent is tainted: it read untrusted mail (from outside the workspace, an unauthenticated sender, or injection signals), or replies to it
      </label>
    </>
  );
}

export function PolicyConditions({ policy: p }: { policy: Awaited<ReturnType<typeof listPolicies>>[number] }) {
  const parts = [
    p.inboxId && `inbox ${p.inboxId}`,
    p.recipientDomain && `to @${p.recipientDomain}`,
    p.newRecipients && "untrusted recipients",
    p.minPriority !== null && `priority ≥ ${p.minPriority}`,
    p.resource && `resource ${p.resource}`,
    p.untrustedTrace && "while the agent is tainted",
  ].filter(Boolean);
  return parts.length ? <span className="mt-0.5 block font-sans text-slate-600">{parts.join(" · ")}</span> : null;
}
