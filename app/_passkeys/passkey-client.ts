"use client";

import { signIn } from "next-auth/webauthn";

/**
 * Runs a passkey ceremony through Auth.js. `register` with an email creates an account (the
 * server holds what it is for); `register` without one adds a passkey to the signed-in
 * person; `authenticate` confirms a passkey of the signed-in person (Auth.js refuses a signed-in
 * ceremony without an action); no action signs in with a discoverable passkey. Returns where to go next, or an error.
 */
export async function passkeyCeremony(opts: { action?: "register" | "authenticate"; email?: string; redirectTo: string }): Promise<{ url: string } | { error: string }> {
  try {
    const params: Record<string, string> = {};
    if (opts.action) params.action = opts.action;
    if (opts.email) params.email = opts.email;
    const res = await signIn("passkey", { ...params, redirect: false, redirectTo: opts.redirectTo });
    if (!res) return { error: "The passkey request was refused. Reload the page and try again." };
    if (res.error || !res.ok || !res.url) return { error: describe(res.error) };
    return { url: res.url };
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "NotAllowedError" || name === "AbortError") return { error: "The passkey prompt was cancelled or timed out." };
    if (name === "InvalidStateError") return { error: "This device already holds a passkey for this account." };
    return { error: err instanceof Error ? err.message : "The passkey could not be used." };
  }
}

function describe(code: string | null | undefined): string {
  switch (code) {
    case "AccessDenied":
      return "This passkey cannot be used here. If your organisation requires single sign-on for your email domain, sign in with SSO (and add your passkey once signed in).";
    case "CallbackRouteError":
      return "The passkey was not accepted: the invitation or setup may no longer be valid, or the account already exists.";
    default:
      return code ? `Sign-in failed (${code}).` : "Sign-in failed.";
  }
}
