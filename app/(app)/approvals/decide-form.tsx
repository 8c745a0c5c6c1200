"use client";

import { useState, type FormEvent, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import type { ActionState } from "@/lib/domains/auth/member-action";
import type { DecisionOptions } from "@/lib/domains/approvals/decide-with-passkey";
import { ActionMessage } from "../_components/action-form";
import { buttonClass } from "../_components/ui";
import { decideApprovalAction, startDecisionAction } from "./actions";
import { promptPasskey } from "./passkey-prompt";

/** Step one for an approval the server opens on submit (a draft's "Approve and send"): which approval, and its challenge. */
export type PrepareDecision = () => Promise<ActionState<{ approval_id: string; options: DecisionOptions }>>;

/**
 * Approve or deny: each decision is a fresh act, so submitting asks the server for a challenge
 * bound to this approval and verdict, runs the passkey prompt (user verification required), and
 * sends the assertion with the decision. Any failure says what happened and records nothing.
 * With `prepare` (a draft's page) the server names the approval in step one; step two is the same.
 */
export function DecideForm({
  approvalId,
  prepare,
  decision,
  submit,
  submitClassName = buttonClass,
  className,
  children,
}: {
  approvalId?: string;
  prepare?: PrepareDecision;
  decision: "approve" | "deny";
  submit: ReactNode;
  submitClassName?: string;
  className?: string;
  children?: ReactNode;
}) {
  const router = useRouter();
  const [state, setState] = useState<ActionState<unknown>>(null);
  const [busy, setBusy] = useState<null | "passkey" | "saving">(null);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy("passkey");
    setState(null);
    try {
      let target = approvalId ?? "";
      let options: DecisionOptions | undefined;
      if (prepare) {
        const prepared = await prepare();
        if (prepared?.ok && prepared.data) [target, options] = [prepared.data.approval_id, prepared.data.options];
        else if (prepared && !prepared.ok) return setState(prepared);
      } else {
        const started = await startDecisionAction({ approval_id: target, decision });
        if (started && !started.ok) return setState(started);
        options = started?.data;
      }
      if (!options) {
        setState({ ok: false, error: "The decision could not be started: reload the page and try again." });
        return;
      }
      const prompted = await promptPasskey(options, "deciding");
      if ("error" in prompted) return setState({ ok: false, error: prompted.error });
      setBusy("saving");
      form.set("approval_id", target);
      form.set("decision", decision);
      form.set("assertion", JSON.stringify(prompted.assertion));
      const result = await decideApprovalAction(null, form);
      setState(result);
      if (result?.ok) router.refresh();
    } finally {
      setBusy(null);
    }
  };
  return (
    <form onSubmit={onSubmit} className={className} data-decision={decision}>
      {children}
      <button type="submit" className={submitClassName} disabled={busy !== null} aria-disabled={busy !== null}>
        {busy === "passkey" ? "Confirm with your passkey…" : busy === "saving" ? "Working…" : submit}
      </button>
      <ActionMessage state={state} />
    </form>
  );
}
