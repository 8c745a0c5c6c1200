import { calendarNames } from "@/lib/domains/approvals/bound-holds";
import { Badge } from "../_components/ui";
import { Time } from "../_components/time";
import { ActionForm } from "../_components/action-form";
import { secondaryButtonClass } from "../_components/ui";
import { extendBoundHoldsAction } from "./actions";

type BoundHold = {
  hold_id: string;
  status: string;
  calendar_ids: string[];
  start_time: string;
  end_time: string;
  priority: number;
  expires_at: string;
  preempted_by: { hold_id: string; priority: number } | null;
  event_ids: string[];
};

const TONES: Record<string, "green" | "amber" | "red" | "slate" | "indigo"> = { held: "amber", committed: "green", preempted: "red", released: "slate", expired: "slate" };

/** The holds an approval keeps (SPEC §12), and what approving it will do with them. */
export async function BoundHolds({
  workspaceId,
  holds,
  onApprove,
  pending,
  approval,
}: {
  workspaceId: string;
  holds: BoundHold[];
  onApprove: "commit" | "hold";
  pending: boolean;
  /** Given to people who may extend the holds (approvers and above). */
  approval?: { id: string; expires_at: string };
}) {
  if (holds.length === 0) return null;
  const names = await calendarNames(workspaceId, [...new Set(holds.flatMap((h) => h.calendar_ids))]);
  const live = holds.filter((h) => h.status === "held");
  return (
    <section className="mt-3" aria-label="Bound holds" data-testid="bound-holds">
      <h3 className="text-sm font-medium text-slate-800">Holds waiting for this decision</h3>
      {pending ? (
        <p className="mt-1 text-sm text-slate-700" data-testid="on-approve">
          {live.length === 0
            ? "None of its holds is still live: approving commits nothing."
            : onApprove === "commit"
              ? `Approving commits ${live.length === 1 ? "this hold" : `these ${live.length} holds`} to the calendar at once; denying releases ${live.length === 1 ? "it" : "them"}.`
              : `Approving keeps ${live.length === 1 ? "this hold" : `these ${live.length} holds`} for the agent with a fresh TTL; denying releases ${live.length === 1 ? "it" : "them"}.`}{" "}
          Until then they stay held up to the hold TTL cap from when they were bound (see each one&apos;s expiry), not for the approval&apos;s whole life, unless a person keeps them
          longer.
        </p>
      ) : null}
      {pending && approval && live.some((h) => Date.parse(h.expires_at) < Date.parse(approval.expires_at)) ? (
        <ActionForm action={extendBoundHoldsAction} submit="Keep the holds until the approval expires" submitClassName={secondaryButtonClass} className="mt-2">
          <input type="hidden" name="approval_id" value={approval.id} />
          <p className="text-xs text-slate-600">
            Blocks the time for the agent until <Time at={new Date(approval.expires_at)} />; recorded in the audit log.
          </p>
        </ActionForm>
      ) : null}
      <ul className="mt-2 divide-y divide-slate-100 rounded-md border border-slate-200 text-sm">
        {holds.map((h) => (
          <li key={h.hold_id} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2" data-testid={`bound-hold-${h.hold_id}`}>
            <span>
              <span className="font-medium text-slate-900">{h.calendar_ids.map((c) => names.get(c) ?? c).join(", ")}</span>{" "}
              <span className="text-slate-700">
                <Time at={new Date(h.start_time)} /> – <Time at={new Date(h.end_time)} />
              </span>{" "}
              <span className="text-slate-600">· priority {h.priority}</span>
            </span>
            <span className="flex flex-wrap items-center gap-2">
              <Badge tone={TONES[h.status] ?? "slate"}>{h.status}</Badge>
              {h.status === "held" ? (
                <span className="text-xs text-slate-600">
                  until <Time at={new Date(h.expires_at)} />
                </span>
              ) : null}
              {h.preempted_by ? <span className="text-xs text-red-800">by a priority-{h.preempted_by.priority} hold</span> : null}
              <code className="font-mono text-xs text-slate-600">{h.hold_id}</code>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
