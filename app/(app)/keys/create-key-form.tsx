"use client";

import { useActionState } from "react";
import { ActionMessage, SubmitButton } from "../_components/action-form";
import { CopyButton } from "../_components/copy-button";
import { Field, inputClass } from "../_components/ui";
import { createKeyAction } from "./actions";

const SCOPES = ["mail", "calendar", "approvals", "audit", "webhooks", "handoffs", "leases"] as const;

/** Creates a key and shows it this once, with a copy button. */
export function CreateKeyForm({ agents, agentId }: { agents: { id: string; name: string }[]; agentId?: string }) {
  const [state, action] = useActionState(createKeyAction, null);
  return (
    <>
      <form action={action} className="grid gap-4 md:grid-cols-2">
        <Field label="Name (optional)" name="name">
          <input id="name" name="name" maxLength={100} className={inputClass} placeholder="production worker" />
        </Field>
        <Field label="Agent" name="agent_id" hint="A key bound to an agent acts only as that agent.">
          <select id="agent_id" name="agent_id" defaultValue={agentId ?? ""} className={inputClass} aria-describedby="agent_id-hint">
            <option value="">Whole workspace</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </Field>
        <fieldset className="md:col-span-2">
          <legend className="mb-1 text-sm font-medium text-slate-800">Scopes (none checked: every scope)</legend>
          <div className="flex flex-wrap gap-4">
            {SCOPES.map((s) => (
              <label key={s} className="flex items-center gap-2 text-sm text-slate-800">
                <input type="checkbox" name="scopes" value={s} className="h-4 w-4 rounded border-slate-400 accent-indigo-700" />
                {s}
              </label>
            ))}
          </div>
        </fieldset>
        <Field label="Mode" name="mode">
          <select id="mode" name="mode" defaultValue="live" className={inputClass}>
            <option value="live">live (ad_live_…)</option>
            <option value="test">test (ad_test_…)</option>
          </select>
        </Field>
        <div className="flex items-end">
          <SubmitButton>Create API key</SubmitButton>
        </div>
      </form>
      <ActionMessage state={state} />
      {state?.ok && state.data ? (
        <div role="status" className="mt-4 rounded-md border border-green-300 bg-green-50 p-4">
          <p className="text-sm font-medium text-green-900">Your new API key. Copy it now: it will not be shown again.</p>
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <code data-testid="new-api-key" className="break-all rounded bg-white px-2 py-1 font-mono text-sm text-slate-900 ring-1 ring-slate-200">
              {state.data.key}
            </code>
            <CopyButton value={state.data.key} label="Copy key" />
          </div>
        </div>
      ) : null}
    </>
  );
}
