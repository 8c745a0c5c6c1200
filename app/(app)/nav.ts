import type { MemberRole } from "@/lib/domains/members/roles";

export type NavItem = { href: string; label: string; minRole?: MemberRole };

/** The web app's sections, in menu order. A later feature adds its page here (calendars, approvals, inboxes, webhooks). */
export const NAV: NavItem[] = [
  { href: "/overview", label: "Overview" },
  { href: "/approvals", label: "Approvals" },
  { href: "/calendars", label: "Calendars" },
  { href: "/google", label: "Google Calendar" },
  { href: "/microsoft", label: "Microsoft 365" },
  { href: "/leases", label: "Leases" },
  { href: "/inboxes", label: "Inboxes" },
  { href: "/domains", label: "Mail domains" },
  { href: "/agents", label: "Agents" },
  { href: "/keys", label: "API keys" },
  { href: "/audit", label: "Audit trail" },
  { href: "/members", label: "Members" },
  { href: "/mail", label: "Captured mail", minRole: "admin" },
  { href: "/settings", label: "Settings" },
  { href: "/channels", label: "Notification channels" },
  { href: "/handoffs", label: "Handoffs" },
  { href: "/webhooks", label: "Webhooks" },
];
