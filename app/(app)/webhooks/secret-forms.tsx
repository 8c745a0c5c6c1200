"use client";

import { useActionState, type ReactNode } from "react";
import { EVENT_TYPES } from "@/lib/platform/events/event-type-list";
import { ActionMessage, SubmitButton } from "../_components/action-form";
import { CopyButton } from "../_components/copy-button";
import { Field, inputClass, secondaryButtonClass } from "../_components/ui";
import { createEndpointAction, rotateSecretAction, type EndpointSecret } from "./actions";
import type { ActionState } from "@/lib/domains/auth/member-action";

function ShownOnce({ state }: { state: ActionState<EndpointSecret> }) {
  if (!state?.ok || !state.data) return null;
  return (
    <div role="status" className="mt-4 rounded-md border border-green-300 bg-green-50 p-4">
      <p className="text-sm font-medium text-green-900">The signing secret. Copy it now: it will not be shown again.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code data-testid="webhook-secret" className="break-all rounded bg-white px-2 py-1 font-mono text-sm text-slate-900 ring-1 ring-slate-200">
          {state.data.secret}
        </code>
        <CopyButton value={state.data.secret} label="Copy secret" />
      </div>
    </div>
  );
}

export function EventTypeChoices({ checked, legend = "Event types (none checked: all)" }: { checked?: string[] | null; legend?: string }) {
  return (
    <fieldset className="md:col-span-2">
      <legend className="mb-1 text-sm font-medium text-slate-800">{legend}</legend>
      <div className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-2 lg:grid-cols-3">
        {EVENT_TYPES.map((t) => (
          <label key={t} className="flex items-center gap-2 text-sm text-slate-800">
            <input type="checkbox" name="event_types" value={t} defaultChecked={checked?.includes(t)} className="h-4 w-4 rounded border-slate-400 accent-indigo-700" />
            <code className="font-mono text-xs">{t}</code>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function AgentChoices({ agents, checked }: { agents: { id: string; name: string }[]; checked?: string[] | null }): ReactNode {
  if (agents.length === 0) return null;
  return (
    <fieldset className="md:col-span-2">
      <legend className="mb-1 text-sm font-medium text-slate-800">Agents (none checked: every agent&apos;s events, and events of no agent)</legend>
      <div className="flex flex-wrap gap-4">
        {agents.map((a) => (
          <label key={a.id} className="flex items-center gap-2 text-sm text-slate-800">
            <input type="checkbox" name="agent_ids" value={a.id} defaultChecked={checked?.includes(a.id)} className="h-4 w-4 rounded border-slate-400 accent-indigo-700" />
            {a.name}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** Creates an endpoint and shows its secret this once. */
export function CreateEndpointForm({ agents }: { agents: { id: string; name: string }[] }) {
  const [state, action] = useActionState(createEndpointAction, null);
  return (
    <>
      <form action={action} className="grid gap-4 md:grid-cols-2">
        <Field label="URL" name="url" hint="https; plain http only for hosts the operator allows (WEBHOOK_ALLOWED_HOSTS).">
          <input id="url" name="url" type="url" required maxLength={2048} className={inputClass} placeholder="https://agent.example.com/webhooks" aria-describedby="url-hint" />
        </Field>
        <Field label="Description (optional)" name="description">
          <input id="description" name="description" maxLength={500} className={inputClass} />
        </Field>
        <EventTypeChoices />
        <AgentChoices agents={agents} />
        <div>
          <SubmitButton>Create endpoint</SubmitButton>
        </div>
      </form>
      <ActionMessage state={state} />
      <ShownOnce state={state} />
    </>
  );
}

/** Rotates the secret and shows the new one this once. */
export function RotateSecretForm({ endpointId }: { endpointId: string }) {
  const [state, action] = useActionState(rotateSecretAction, null);
  return (
    <div>
      <form action={action}>
        <input type="hidden" name="endpoint_id" value={endpointId} />
        <SubmitButton className={secondaryButtonClass}>Rotate secret</SubmitButton>
      </form>
      <ActionMessage state={state} />
      <ShownOnce state={state} />
    </div>
  );
}
