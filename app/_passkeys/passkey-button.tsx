"use client";

import { useState } from "react";


import { passkeyCeremony } from "./passkey-client";
import { passkeyButtonClass as buttonClass } from "./styles";

/** Signs in with a discoverable passkey (no email to type). */
export function SignInWithPasskey({ redirectTo }: { redirectTo: string }) {
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
          const result = await passkeyCeremony({ redirectTo });
          if ("url" in result) (window.location.href = result.url);
          else {
            setError(result.error);
            setBusy(false);
          }
        }}
      >
        {busy ? "Waiting for your passkey…" : "Sign in with a passkey"}
      </button>
      {error ? (
        <p role="alert" className="mt-3 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** Adds another passkey to the signed-in person. */
export function AddPasskey() {
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
          const result = await passkeyCeremony({ action: "register", redirectTo: "/settings" });
          // A full load, so the page shows the new passkey (no client cache involved).
          // eslint-disable-next-line @next/next/no-location-assign-relative-destination
          if ("url" in result) (window.location.href = "/settings");
          else {
            setError(result.error);
            setBusy(false);
          }
        }}
      >
        {busy ? "Waiting for your passkey…" : "Add a passkey"}
      </button>
      {error ? (
        <p role="alert" className="mt-3 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
          {error}
        </p>
      ) : null}
    </div>
  );
}
