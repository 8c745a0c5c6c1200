"use client";

import { useState } from "react";
import { passkeyCeremony } from "./passkey-client";
import { passkeyButtonClass as buttonClass } from "./styles";

/** Signs in with a discoverable passkey (no email to type). */
export function SignInWithPasskey({ redirectTo }: { redirectTo: string }) {
  return <CeremonyButton label="Sign in with a passkey" ceremony={() => passkeyCeremony({ redirectTo })} />;
}

/** Adds another passkey to the signed-in person. */
export function AddPasskey() {
  return (
    <CeremonyButton
      label="Add a passkey"
      ceremony={() => passkeyCeremony({ action: "register", redirectTo: "/settings" })}
      // A full load, so the page shows the new passkey (no client cache involved).
      destination={() => "/settings"}
    />
  );
}

/** Proves a passkey again while signed in: passkey changes and connecting an application need a recent confirmation. */
export function ConfirmWithPasskey({ returnTo = "/settings" }: { returnTo?: string }) {
  return <CeremonyButton label="Confirm with a passkey" ceremony={() => passkeyCeremony({ action: "authenticate", redirectTo: returnTo })} destination={() => returnTo} />;
}

/** A button that runs a passkey ceremony, then loads where it leads, or says what went wrong. */
function CeremonyButton({
  label,
  ceremony,
  destination = (url) => url,
}: {
  label: string;
  ceremony: () => ReturnType<typeof passkeyCeremony>;
  destination?: (url: string) => string;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <div>
      <button
        type="button"
        className={buttonClass}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          const result = await ceremony();
          if ("url" in result) window.location.href = destination(result.url);
          else {
            setError(result.error);
            setBusy(false);
          }
        }}
      >
        {busy ? "Waiting for your passkey…" : label}
      </button>
      {error ? (
        <p role="alert" className="mt-3 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {error}
        </p>
      ) : null}
    </div>
  );
}
