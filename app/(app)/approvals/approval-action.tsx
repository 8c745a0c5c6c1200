import type { getApproval } from "@/lib/domains/approvals/approvals";
import { MAIL_ACTION_CLASS } from "@/lib/domains/approvals/mail-gate";
import { HeldMessage } from "./held-message";
import { Time } from "../_components/time";

type Approval = Awaited<ReturnType<typeof getApproval>>;

/**
 * The exact action the agent will take, in full, next to the evidence. Rendered as text: React
 * escapes it, so HTML or script in an action is shown, never run. The hash is what a receipt binds.
 */
export function ApprovalAction({ approval: a, workspaceId, showMail }: { approval: Approval; workspaceId: string; showMail: boolean }) {
  if (!a.action) return null;
  return (
    <>

    <section aria-label="Action" className="mt-3">
      <h3 className="text-sm font-medium text-slate-800">{a.status === "pending" ? "Action to be done" : "Action asked for"}</h3>
      <pre className="mt-1 max-h-80 overflow-auto rounded-md border border-amber-200 bg-amber-50 p-3 text-xs text-slate-900" data-testid="approval-action">
        {JSON.stringify(a.action, null, 2)}
      </pre>
      <p className="mt-1 break-all text-xs text-slate-500">
        sha256 <code data-testid="approval-action-sha256">{a.action_sha256}</code>:{" "}
        {a.consumed_at ? (
          <span data-testid="approval-consumed">
            spent at <Time at={new Date(a.consumed_at)} />, once, on exactly this action.
          </span>
        ) : a.status === "approved" ? (
          "approved and not spent yet: the agent can spend it once, on exactly this action."
        ) : a.status === "pending" ? (
          "the agent can spend this approval once, on exactly this action."
        ) : (
          `${a.status}: it can never be spent.`
        )}
      </p>
    </section>
    {showMail && a.action_class === MAIL_ACTION_CLASS ? <HeldMessage workspaceId={workspaceId} approvalId={a.id} /> : null}
    </>
  );
}
