"use client";

import { useActionState, type ReactNode } from "react";
import { useFormStatus } from "react-dom";
import type { ActionState } from "@/lib/domains/auth/member-action";
import { buttonClass } from "./ui";


export function SubmitButton({ children, className = buttonClass }: { children: ReactNode; className?: string }) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" className={className} disabled={pending} aria-disabled={pending}>
      {pending ? "Working…" : children}
    </button>
  );
}

export function ActionMessage({ state }: { state: ActionState<unknown> }) {
  if (!state) return null;
  if (state.ok) {
    return state.message ? (
      <p role="status" className="col-span-full mt-3 rounded-md bg-green-50 px-3 py-2 text-sm text-green-900">
        {state.message}
      </p>
    ) : null;
  }
  return (
    <div role="alert" className="col-span-full mt-3 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
      <p>{state.error}</p>
      {state.fieldErrors ? (
        <ul className="mt-1 list-inside list-disc">
          {Object.entries(state.fieldErrors).map(([field, message]) => (
            <li key={field}>
              {field}: {message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A form bound to a server action; shows the action's message or error below it. Works without JavaScript. */
export function ActionForm<T>({ action, children, submit, className, submitClassName }: { action: (state: ActionState<T>, form: FormData) => Promise<ActionState<T>>; children?: ReactNode; submit: ReactNode; className?: string; submitClassName?: string }) {
  const [state, formAction] = useActionState(action, null as ActionState<T>);
  return (
    <form action={formAction} className={className}>
      {children}
      <SubmitButton className={submitClassName}>{submit}</SubmitButton>
      <ActionMessage state={state} />
    </form>
  );
}
