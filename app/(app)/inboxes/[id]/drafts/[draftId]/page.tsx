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
import { returnDraftAction, sendDraftAction, updateDraftAction } from "../../../draft-actions";

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
  const editable = reviewer && (draft.status === "draft" || draft.status === "returned");
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
          <Card title="Send or send back">
            {draft.status === "draft" ? (
              <div className="grid gap-6 md:grid-cols-2">
                <ActionForm action={sendDraftAction} submit="Send as written" className="grid content-start gap-3">
                  {hidden}
                  <p className="text-sm text-slate-700">Sends exactly this version from the inbox, as you. Workspace mail policies still apply.</p>
                </ActionForm>
                <ActionForm action={returnDraftAction} submit="Send back to the agent" submitClassName={dangerButtonClass} className="grid content-start gap-3">
                  {hidden}
                  <Field label="Note for the agent" name="note">
                    <textarea id="note" name="note" rows={3} required maxLength={2000} className={inputClass} />
                  </Field>
                </ActionForm>
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
