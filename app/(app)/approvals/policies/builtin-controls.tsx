"use client";

import { useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import type { ActionState } from "@/lib/domains/auth/member-action";
import type { BuiltinKey } from "@/lib/domains/approvals/builtin-policies";
import { ActionMessage } from "../../_components/action-form";
import { buttonClass, dangerButtonClass, inputClass, secondaryButtonClass } from "../../_components/ui";
import { promptPasskey } from "../passkey-prompt";
import { changeBuiltinAction, startBuiltinChangeAction } from "./actions";

type Change = { key: BuiltinKey; on: boolean; holds_above?: number };
type Submitting = "off" | "on";

/**
 * An owner's controls for one built-in rule: turn it off or on and, for holds, the priority above
 * which they wait. Each change is a fresh act: the server issues a challenge bound to exactly it,
 * the browser's passkey prompt signs it (user verification required), and the server makes it
 * with that assertion. Any failure says what happened and changes nothing.
 */
export function BuiltinControls({ rule, title, on, holdsAbove }: { rule: BuiltinKey; title: string; on: boolean; holdsAbove: number }) {
  const router = useRouter();
  const [state, setState] = useState<ActionState<unknown>>(null);
  const [busy, setBusy] = useState<null | { form: Submitting; step: "passkey" | "saving" }>(null);

  const submit = (wanted: boolean) => async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const priority = new FormData(event.currentTarget).get("holds_above");
    const change: Change = { key: rule, on: wanted, ...(typeof priority === "string" && priority !== "" ? { holds_above: Number(priority) } : {}) };
    setBusy({ form: wanted ? "on" : "off", step: "passkey" });
    setState(null);
    try {
      const started = await startBuiltinChangeAction(change);
      if (started && !started.ok) return setState(started);
      if (!started?.data) return setState({ ok: false, error: "The change could not be started: reload the page and try again." });
      const prompted = await promptPasskey(started.data, "changing the built-in protection");
      if ("error" in prompted) return setState({ ok: false, error: prompted.error });
      setBusy({ form: wanted ? "on" : "off", step: "saving" });
      const result = await changeBuiltinAction({ change, assertion: JSON.stringify(prompted.assertion) });
      setState(result);
      if (result?.ok) router.refresh();
    } finally {
      setBusy(null);
    }
  };

  const button = (form: Submitting, label: string, className: string) => (
    <button type="submit" className={className} disabled={busy !== null} aria-disabled={busy !== null}>
      {busy?.form === form ? (busy.step === "passkey" ? "Confirm with your passkey…" : "Working…") : label}
      {busy?.form === form || label === "Save" ? null : <span className="sr-only"> the rule for {title.toLowerCase()}</span>}
    </button>
  );

  return (
    <div className="mt-3">
      <div className="flex flex-wrap items-end gap-3">
        {on ? <form onSubmit={submit(false)}>{button("off", "Turn off", dangerButtonClass)}</form> : null}
        {rule === "holds" ? (
          <form onSubmit={submit(true)} className="flex items-end gap-2">
            <div>
              <label htmlFor="builtin-holds-above" className="mb-1 block text-sm font-medium text-slate-800">
                Holds above priority
              </label>
              <input
                key={holdsAbove}
                id="builtin-holds-above"
                name="holds_above"
                type="number"
                min="0"
                max="99"
                step="1"
                required
                defaultValue={holdsAbove}
                className={`${inputClass} w-24`}
              />
            </div>
            {button("on", on ? "Save" : "Turn on", on ? secondaryButtonClass : buttonClass)}
          </form>
        ) : on ? null : (
          <form onSubmit={submit(true)}>{button("on", "Turn on", buttonClass)}</form>
        )}
      </div>
      <ActionMessage state={state} />
    </div>
  );
}
