import type { MemberRow, WorkspaceRow } from "@/db/schema";
import { hasRole } from "@/lib/domains/members/roles";
import { ActionForm } from "../_components/action-form";
import { Card, Field, inputClass, secondaryButtonClass } from "../_components/ui";
import { setPreemptFloorAction } from "./priority-actions";

/** The workspace's preemption floor (SPEC §12): holds asking for less never preempt. */
export function PreemptFloorCard({ member, workspace }: { member: MemberRow; workspace: WorkspaceRow }) {
  const floor = workspace.holdPreemptMinPriority;
  return (
    <Card title="Hold priorities" id="hold-priorities">
      <p className="text-sm text-slate-700" data-testid="preempt-floor">
        {floor === 0
          ? "Any hold may preempt live holds of lower priority."
          : `Holds placed with a priority below ${floor} never preempt: lower-priority holds in their way are conflicts.`}{" "}
        Each agent&apos;s own ceiling is set on the Agents page.
      </p>
      {hasRole(member.role, "admin") ? (
        <ActionForm action={setPreemptFloorAction} submit="Save" submitClassName={secondaryButtonClass} className="mt-4 grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
          <Field label="Holds below this priority never preempt (0: off)" name="hold-preempt-min-priority">
            <input id="hold-preempt-min-priority" name="hold_preempt_min_priority" type="number" min={0} max={100} required defaultValue={floor} className={inputClass} />
          </Field>
        </ActionForm>
      ) : null}
    </Card>
  );
}
