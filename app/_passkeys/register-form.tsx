"use client";

import { useState, type ReactNode } from "react";
import { passkeyCeremony } from "./passkey-client";
import { passkeyButtonClass as buttonClass } from "./styles";

type Begin = (form: FormData) => Promise<{ ok: true; email: string } | { ok: false; error: string }>;


/**
 * A form that first tells the server what the visitor registers for (`begin`, a server
 * action that checks it and remembers it), then creates the passkey for the returned email.
 */
export function RegisterForm({ begin, children, submit, redirectTo }: { begin: Begin; children: ReactNode; submit: string; redirectTo: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="space-y-4"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        const started = await begin(new FormData(event.currentTarget));
        if (!started.ok) {
          setError(started.error);
          setBusy(false);
          return;
        }
        const result = await passkeyCeremony({ action: "register", email: started.email, redirectTo });
        if ("url" in result) (window.location.href = redirectTo);
        else {
          setError(result.error);
          setBusy(false);
        }
      }}
    >
      {children}
      <button type="submit" className={buttonClass} disabled={busy}>
        {busy ? "Waiting for your passkey…" : submit}
      </button>
      {error ? (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {error}
        </p>
      ) : null}
      <noscript>
        <p className="text-sm text-red-900">Creating a passkey needs JavaScript.</p>
      </noscript>
    </form>
  );
}
