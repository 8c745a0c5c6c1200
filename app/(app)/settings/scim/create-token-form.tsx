"use client";

import { useActionState } from "react";
import { ActionMessage, SubmitButton } from "../../_components/action-form";
import { CopyButton } from "../../_components/copy-button";
import { Field, inputClass } from "../../_components/ui";
import { createScimTokenAction } from "./actions";

/** Creates a SCIM token and shows it this once, with a copy button. */
export function CreateScimTokenForm() {
  const [state, action] = useActionState(createScimTokenAction, null);
  return (
    <>
      <form action={action} className="grid gap-4 sm:grid-cols-[1fr_auto] sm:items-end">
        <Field label="Name (optional)" name="scim-token-name">
          <input id="scim-token-name" name="name" maxLength={100} className={inputClass} placeholder="Okta" />
        </Field>
        <SubmitButton>Create SCIM token</SubmitButton>
      </form>
      <ActionMessage state={state} />
      {state?.ok && state.data ? (
        <div role="status" className="mt-4 rounded-md border border-green-300 bg-green-50 p-4">
          <p className="text-sm font-medium text-green-900">Your new SCIM token. Paste it into your identity provider now: it will not be shown again.</p>
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <code data-testid="new-scim-token" className="break-all rounded bg-white px-2 py-1 font-mono text-sm text-slate-900 ring-1 ring-slate-200">
              {state.data.token}
            </code>
            <CopyButton value={state.data.token} label="Copy token" />
          </div>
        </div>
      ) : null}
    </>
  );
}
