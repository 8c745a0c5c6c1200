import { env } from "./env";

/** What a deployment does to the outside world, one kind at a time. */
export const OUTBOUND_KINDS = ["webhooks", "mail", "notifications", "calendar"] as const;
export type OutboundKind = (typeof OUTBOUND_KINDS)[number];

/**
 * A non-production deployment: a Vercel preview (`VERCEL_ENV=preview`), or any host that says so
 * (`AGENTDRAFT_PREVIEW=1`). Its database is often a copy of production's (a Neon branch per
 * preview), endpoints, queued mail, channels and calendar links included.
 */
export function isPreviewDeployment(): boolean {
  const e = env();
  return e.AGENTDRAFT_PREVIEW ?? e.VERCEL_ENV === "preview";
}

/** Whether this kind of outbound effect is captured (recorded and shown, not sent): on a preview, unless AGENTDRAFT_PREVIEW_SEND names it. */
export function capturesOutbound(kind: OutboundKind): boolean {
  return isPreviewDeployment() && !env().AGENTDRAFT_PREVIEW_SEND.includes(kind);
}

/** The kinds a preview captures (empty in production). */
export const capturedKinds = (): OutboundKind[] => OUTBOUND_KINDS.filter(capturesOutbound);
