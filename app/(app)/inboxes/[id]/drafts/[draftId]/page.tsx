import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";
import { memberActor } from "@/lib/domains/members/memberships";
import { hasRole } from "@/lib/domains/members/roles";
import { getDraft } from "@/lib/domains/mail/drafts";
import { AppError } from "@/lib/platform/errors";
import { ActionForm } from "../../../../_components/action-form";
import { Card, Field, PageHeader, dangerButtonClass, inputClass, linkClass, secondaryButtonClass } from "../../../../_components/ui";
import { Time } from "../../../../_components/time";
import { DraftStatusBadge } from "../../../draft-parts";
import { prepareDraftApprovalAction, returnDraftAction, sendDraftAction, updateDraftAction } from "../../../draft-actions";
import { draftNeedsApproval } from "@/lib/domains/approvals/draft-approval";
import { getApproval } from "@/lib/domains/approvals/approvals";
import { DecideForm } from "../../../../approvals/decide-form";

export const metadata: Metadata = { title: "Draft" };

export default async function DraftPage({ params }: { params: Promise<{ id: string; draftId: string }> }) {
  const { member } = await requireMember();
  const { id, draftId } = await params;
  const draft = await getDraft(memberActor(member), draftId).catch((err) => {
    if (err instanceof AppError && err.code === "not_found") notFound();
    throw err;
  });
  if (draft.inboxId !== id) notFound();
  const reviewer = hasRole(member.role, "approver");
  const actor = memberActor(member);
  // The approval this draft's message waits for, if any (held by the agent's send or an earlier Approve and send).
  const approval = draft.status === "sent" && draft.approvalId ? await getApproval(actor, draft.approvalId).catch(() => null) : null;
  const waiting = approval?.status === "pending" ? approval : null;
  const needs = reviewer ? await draftNeedsApproval(actor, draft) : null;
  const editable = reviewer && (draft.status === "draft" || draft.status === "returned" || waiting !== null);
  const approveAndSend = prepareDraftApprovalAction.bind(null, id, draft.id, draft.version);
  const heldAction = (waiting?.action ?? null) as { rfc822_sha256?: string; size_bytes?: number } | null;
  const by = draft.createdBy.type === "key" ? `the agent (key ${draft.createdBy.key_id})` : draft.createdBy.type === "member" ? "a member" : draft.createdBy.type;
  const hidden = (
    <>
      <input type="hidden" name="inbox_id" value={id} />
      <input type="hidden" name="draft_id" value={draft.id} />
      <input type="hidden" name="version" value={draft.version} />
    </>
  );
  return (
    <>
      <PageHeader title={draft.subject || "(no subject)"} description={`A ${draft.kind === "new" ? "new message" : draft.kind} drafted by ${by}, version ${draft.version}.`}>
        <Link href={`/inboxes/${id}`} className={secondaryButtonClass}>
          Back to the inbox
        </Link>
      </PageHeader>
      <Card title="Draft">
        <dl className="grid gap-x-4 gap-y-2 text-sm sm:grid-cols-[8rem_1fr]" data-testid="draft-summary">
          <dt className="text-slate-600">Status</dt>
          <dd>
            <DraftStatusBadge status={draft.status} />
          </dd>
          <dt className="text-slate-600">To</dt>
          <dd>{draft.to.join(", ") || "nobody yet"}</dd>
          {draft.cc.length ? (
            <>
              <dt className="text-slate-600">Cc</dt>
              <dd>{draft.cc.join(", ")}</dd>
            </>
          ) : null}
          {draft.bcc.length ? (
            <>
              <dt className="text-slate-600">Bcc</dt>
              <dd>{draft.bcc.join(", ")} (delivered, never named in the message&apos;s headers)</dd>
            </>
          ) : null}
          <dt className="text-slate-600">Last change</dt>
          <dd>
            <Time at={draft.updatedAt} />
          </dd>
          {draft.attachments.length || draft.kind === "forward" ? (
            <>
              <dt className="text-slate-600">Attachments</dt>
              <dd>
                {draft.attachments.length ? (
                  <ul className="list-disc pl-4" data-testid="draft-attachments">
                    {draft.attachments.map((a, i) => (
                      <li key={`${i}-${a.sha256}`}>
                        <a className={linkClass} href={`/inboxes/${id}/drafts/${draft.id}/attachments/${i}`} download={a.filename}>
                          {a.filename}
                        </a>{" "}
                        ({a.content_type}, {a.size} bytes)
                      </li>
                    ))}
                  </ul>
                ) : null}
                {draft.kind === "forward" ? <p className="text-slate-600">The forwarded message&apos;s own attachments go with it too.</p> : null}
              </dd>
            </>
          ) : null}
          {draft.reviewNote ? (
            <>
              <dt className="text-slate-600">Review note</dt>
              <dd data-testid="review-note">{draft.reviewNote}</dd>
            </>
          ) : null}
          {draft.sentMessageId ? (
            <>
              <dt className="text-slate-600">Sent as</dt>
              <dd>
                message {draft.sentMessageId}
                {draft.approvalId ? (
                  <>
                    {", held for "}
                    <Link href={`/approvals/${draft.approvalId}`} className={linkClass}>
                      its approval
                    </Link>
                  </>
                ) : null}
              </dd>
            </>
          ) : null}
        </dl>
        <pre className="mt-4 whitespace-pre-wrap break-words rounded-md bg-slate-50 p-3 text-sm text-slate-900" data-testid="draft-text">
          {draft.text || "(no text yet)"}
        </pre>
      </Card>
      {waiting ? (
        <Card title="Waiting for approval">
          <div className="grid gap-2 text-sm text-slate-700" data-testid="draft-approval">
            <p>
              Its message is held until{" "}
              {waiting.required_approvals === 1 ? "a person approves it" : `${waiting.required_approvals} people approve it`} (
              <Link href={`/approvals/${waiting.id}`} className={linkClass}>
                approval {waiting.id}
              </Link>
              , {waiting.decisions.length} of {waiting.required_approvals} so far). Approving sends exactly the bytes composed from this version
              {heldAction?.rfc822_sha256 ? (
                <>
                  {" "}
                  (SHA-256 <code className="break-all" data-testid="held-sha256">{heldAction.rfc822_sha256}</code>)
                </>
              ) : null}
              ; saving an edit cancels this approval and its held message, and you approve the new version here.
            </p>
          </div>
        </Card>
      ) : null}
      {editable ? (
        <>
          <Card title="Edit">
            <ActionForm action={updateDraftAction} submit="Save changes" className="grid gap-4">
              {hidden}
              <Field label="To (comma-separated)" name="to">
                <input id="to" name="to" defaultValue={draft.to.join(", ")} className={inputClass} />
              </Field>
              <Field label="Cc (comma-separated)" name="cc">
                <input id="cc" name="cc" defaultValue={draft.cc.join(", ")} className={inputClass} />
              </Field>
              <Field label="Bcc (comma-separated)" name="bcc">
                <input id="bcc" name="bcc" defaultValue={draft.bcc.join(", ")} className={inputClass} />
              </Field>
              <Field label="Subject" name="subject">
                <input id="subject" name="subject" maxLength={900} defaultValue={draft.subject} className={inputClass} />
              </Field>
              <Field label="Text" name="text">
                <textarea id="text" name="text" rows={10} defaultValue={draft.text} className={inputClass} />
              </Field>
              <Field label="HTML (optional; sent as written)" name="html">
                <textarea id="html" name="html" rows={4} defaultValue={draft.html ?? ""} className={inputClass} />
              </Field>
            </ActionForm>
          </Card>
          <Card title={waiting || needs ? "Approve and send, or send back" : "Send or send back"}>
            {draft.status === "draft" || waiting ? (
              <div className="grid gap-6 md:grid-cols-2">
                {waiting || needs ? (
                  <DecideForm prepare={approveAndSend} decision="approve" submit="Approve and send" className="grid content-start gap-3">
                    <p className="text-sm text-slate-700">
                      {needs ? `Workspace policy “${needs.policy}” asks ${needs.requiredApprovals === 1 ? "a person" : `${needs.requiredApprovals} people`} to approve this mail. ` : null}
                      Approves exactly this version with your passkey, as on the approvals page: the approval&apos;s receipt binds the bytes that leave
                      {(waiting?.required_approvals ?? needs?.requiredApprovals ?? 1) > 1 ? ", which leave once enough people approve" : ""}.
                    </p>
                  </DecideForm>
                ) : (
                  <ActionForm action={sendDraftAction} submit="Send as written" className="grid content-start gap-3">
                    {hidden}
                    <p className="text-sm text-slate-700">Sends exactly this version from the inbox, as you. No workspace mail policy asks for an approval of it.</p>
                  </ActionForm>
                )}
                {draft.status === "draft" ? (
                  <ActionForm action={returnDraftAction} submit="Send back to the agent" submitClassName={dangerButtonClass} className="grid content-start gap-3">
                    {hidden}
                    <Field label="Note for the agent" name="note">
                      <textarea id="note" name="note" rows={3} required maxLength={2000} className={inputClass} />
                    </Field>
                  </ActionForm>
                ) : (
                  <p className="text-sm text-slate-700">To send it back to the agent instead, save an edit first (that cancels its approval and makes it a draft again), or deny it on the approvals page.</p>
                )}
              </div>
            ) : (
              <p className="text-sm text-slate-700">Sent back to the agent: it can be sent again once it is edited (by the agent, or here).</p>
            )}
          </Card>
        </>
      ) : null}
    </>
  );
}
