import { cookies } from "next/headers";
import { appCookieOptions } from "./cookie-options";
import type { RegistrationIntent } from "./registration";

const NAME = "agentdraft-registration";

/** Keeps what a visitor is registering for between the form and the passkey ceremony (10 minutes). */
export async function saveRegistrationIntent(intent: RegistrationIntent): Promise<void> {
  (await cookies()).set(NAME, Buffer.from(JSON.stringify(intent)).toString("base64url"), appCookieOptions(600));
}

/** The saved intent, unvalidated (registerUser validates it); undefined when there is none. */
export async function readRegistrationIntent(): Promise<unknown> {
  const raw = (await cookies()).get(NAME)?.value;
  if (!raw) return undefined;
  try {
    return JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}
