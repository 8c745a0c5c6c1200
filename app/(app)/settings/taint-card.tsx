import type { MemberRow, WorkspaceRow } from "@/db/schema";
import { hasRole } from "@/lib/domains/members/roles";
import { ActionForm } from "../_components/action-form";
import { Card, Field, inputClass, secondaryButtonClass } from "../_components/ui";
import { setTaintSettingsAction } from "./taint-actions";

/** The workspace's taint policy (SPEC §13): how long reading untrusted mail taints an agent, and which recipient domains are trusted. */
export function TaintSettingsCard({ member, workspace }: { member: MemberRow; workspace: WorkspaceRow }) {
  const hours = workspace.taintWindowSeconds / 3600;
  return (
    <Card title="Untrusted mail" id="untrusted-mail">
      <p className="text-sm text-slate-700" data-testid="taint-settings">
        An agent that reads mail from outside the workspace (anyone but a member, an inbox here or a trusted domain; other workspaces too), from an
        unauthenticated sender, or with injection signals, is tainted for {hours} h after its last read (or until an approver clears it on the Agents
        page). While tainted, the built-in rules and the actions your approval policies mark “only while the agent is tainted” need a person. Trusted
        recipients: members, this workspace&apos;s inboxes, addresses it has sent to
        {workspace.trustedDomains.length ? `, and anyone at ${workspace.trustedDomains.join(", ")}` : ""}; authenticated mail from a trusted domain is
        not from outside.
      </p>
      {hasRole(member.role, "admin") ? (
        <ActionForm action={setTaintSettingsAction} submit="Save taint policy" submitClassName={secondaryButtonClass} className="mt-4 grid gap-3 sm:grid-cols-[1fr_2fr_auto] sm:items-end">
          <Field label="Taint window (hours)" name="taint-window-hours">
            <input id="taint-window-hours" name="taint_window_hours" type="number" min={0.02} max={720} step="any" required defaultValue={hours} className={inputClass} />
          </Field>
          <Field label="Trusted recipient domains" name="trusted-domains">
            <input id="trusted-domains" name="trusted_domains" defaultValue={workspace.trustedDomains.join(", ")} placeholder="example.com, partner.example" className={inputClass} />
          </Field>
        </ActionForm>
      ) : null}
    </Card>
  );
}
