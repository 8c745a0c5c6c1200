import { Resend } from "resend";
import { env } from "../../platform/config/env";

/** The Resend client for this deployment (RESEND_BASE_URL points it elsewhere, e.g. a local fake). */
export function resendClient(apiKey = env().RESEND_API_KEY): Resend | null {
  if (!apiKey) return null;
  const baseUrl = env().RESEND_BASE_URL;
  return new Resend(apiKey, baseUrl ? { baseUrl: baseUrl.replace(/\/$/, "") } : undefined);
}
