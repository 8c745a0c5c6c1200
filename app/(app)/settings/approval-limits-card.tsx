import type { MemberRow, WorkspaceRow } from "@/db/schema";
import { hasRole } from "@/lib/domains/members/roles";
import { ActionForm } from "../_components/action-form";
import { Card, Field, inputClass, secondaryButtonClass } from "../_components/ui";
import { setApprovalLimitsAction } from "./approval-limits-actions";

/** How many approvals one agent may have waiting for people at once (approval fatigue). */
export function ApprovalLimitsCard({ member, workspace }: { member: MemberRow; workspace: WorkspaceRow }) {
  const max = workspace.maxPendingApprovalsPerAgent;
  return (
    <Card title="Approval limits" id="approval-limits">
      <p className="text-sm text-slate-700" data-testid="max-pending-approvals">
        Each agent may have at most {max} approval{max === 1 ? "" : "s"} pending at once; asking for more is refused until people decide or the agent cancels some.
      </p>
      {hasRole(member.role, "admin") ? (
        <ActionForm action={setApprovalLimitsAction} submit="Save" submitClassName={secondaryButtonClass} className="mt-4 grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
          <Field label="Pending approvals per agent" name="max-pending-approvals-per-agent">
            <input id="max-pending-approvals-per-agent" name="max_pending_approvals_per_agent" type="number" min={1} max={1000} required defaultValue={max} className={inputClass} />
          </Field>
        </ActionForm>
      ) : null}
    </Card>
  );
}
