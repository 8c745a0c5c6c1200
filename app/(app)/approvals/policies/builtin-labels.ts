import type { BuiltinKey } from "@/lib/domains/approvals/builtin-policies";

/** What each built-in rule covers, as a short heading (the server action's message and the card share it). */
export const BUILTIN_TITLE: Record<BuiltinKey, string> = {
  mail: "Mail to someone untrusted",
  webhooks: "Webhook endpoint changes",
  leases: "Leases",
  holds: "Holds",
};
