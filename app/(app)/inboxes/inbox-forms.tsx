import type { InboxRow } from "@/db/schema";
import { ActionForm } from "../_components/action-form";
import { Card, Field, dangerButtonClass, inputClass } from "../_components/ui";
import { createInboxAction, deleteInboxAction, labelThreadAction, updateInboxRulesAction } from "./inbox-actions";

const RULES_HINT = "One a line: an address (a@b.com) or a domain (@b.com).";

/** For admins on the inboxes page: give an agent an address. */
export function CreateInboxCard({ agents, domain, ownDomains = [] }: { agents: { id: string; name: string }[]; domain: string; ownDomains?: string[] }) {
  return (
    <Card title="Create an inbox" id="create-inbox">
      {agents.length === 0 ? (
        <p className="text-sm text-slate-600">Create an agent first: every inbox belongs to one.</p>
      ) : (
        <ActionForm action={createInboxAction} submit="Create inbox" className="grid gap-4 md:grid-cols-3 md:items-start">
          <Field label="Agent" name="agent_id">
            <select id="agent_id" name="agent_id" required className={inputClass}>
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Address (before the @; empty: generated)" name="username">
            <input id="username" name="username" maxLength={64} className={inputClass} placeholder="scheduler" />
          </Field>
          <Field label="Domain" name="domain" hint="Your own domains appear here once verified (Mail domains).">
            <select id="domain" name="domain" className={inputClass} aria-describedby="domain-hint">
              <option value="">@{domain}</option>
              {ownDomains.map((d) => (
                <option key={d} value={d}>
                  @{d}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Display name (optional)" name="display_name">
            <input id="display_name" name="display_name" maxLength={100} className={inputClass} />
          </Field>
        </ActionForm>
      )}
    </Card>
  );
}

/** For admins on an inbox's page: its sender rules, and deleting it with its mail. */
export function InboxSettingsCard({ inbox }: { inbox: InboxRow }) {
  return (
    <Card title="Settings" id="inbox-settings">
      <ActionForm action={updateInboxRulesAction} submit="Save settings" className="grid gap-4 md:grid-cols-3 md:items-start">
        <input type="hidden" name="inbox_id" value={inbox.id} />
        <Field label="Display name" name="display_name">
          <input id="display_name" name="display_name" maxLength={100} defaultValue={inbox.displayName ?? ""} className={inputClass} />
        </Field>
        <Field label="Allow only these senders (empty: anyone not blocked)" name="allow_senders" hint={RULES_HINT}>
          <textarea id="allow_senders" name="allow_senders" rows={4} defaultValue={inbox.allowSenders.join("\n")} className={inputClass} aria-describedby="allow_senders-hint" />
        </Field>
        <Field label="Block these senders" name="block_senders" hint={RULES_HINT}>
          <textarea id="block_senders" name="block_senders" rows={4} defaultValue={inbox.blockSenders.join("\n")} className={inputClass} aria-describedby="block_senders-hint" />
        </Field>
      </ActionForm>
      <details className="mt-6 rounded-md border border-red-200 p-4">
        <summary className="cursor-pointer text-sm font-medium text-red-800">Delete this inbox</summary>
        <p className="mt-2 text-sm text-slate-700">
          Deletes the inbox with all its threads, messages and attachments, for good. Mail sent to {inbox.address} afterwards is refused, and the address can be given to a new inbox. The audit trail keeps its entries.
        </p>
        <ActionForm action={deleteInboxAction} submit="Delete inbox and its mail" submitClassName={dangerButtonClass} className="mt-3 flex flex-wrap items-end gap-3">
          <input type="hidden" name="inbox_id" value={inbox.id} />
          <Field label="Type the address to confirm" name="confirm_address">
            <input id="confirm_address" name="confirm_address" required autoComplete="off" className={inputClass} placeholder={inbox.address} />
          </Field>
        </ActionForm>
      </details>
    </Card>
  );
}

/** On a thread's page: add and remove its labels (system labels follow the mail; only unread can be changed). */
export function ThreadLabelsForm({ inboxId, threadId }: { inboxId: string; threadId: string }) {
  return (
    <details className="mb-4">
      <summary className="cursor-pointer text-sm text-slate-700">Change labels</summary>
      <ActionForm action={labelThreadAction} submit="Save labels" className="mt-2 flex flex-wrap items-end gap-3">
        <input type="hidden" name="inbox_id" value={inboxId} />
        <input type="hidden" name="thread_id" value={threadId} />
        <Field label="Add" name="add" hint="Separated by commas; letters, digits, . _ - / :">
          <input id="add" name="add" maxLength={1100} className={inputClass} placeholder="needs-human, billing" aria-describedby="add-hint" />
        </Field>
        <Field label="Remove" name="remove">
          <input id="remove" name="remove" maxLength={1100} className={inputClass} placeholder="unread" />
        </Field>
      </ActionForm>
    </details>
  );
}
