import Link from "next/link";
import type { ReactNode } from "react";

const NAV = [
  { href: "/docs", label: "Getting started" },
  { href: "/docs/api", label: "API reference" },
  { href: "/docs/errors", label: "Error codes" },
  { href: "/docs/coordination", label: "Coordination" },
  { href: "/api/v1/openapi.json", label: "openapi.json" },
  { href: "/docs/notification-channels", label: "Notification channels" },
  { href: "/docs/handoffs", label: "Handoffs" },
  { href: "/docs/calendar-sync", label: "Calendar sync" },
  { href: "/docs/events", label: "Live events" },
  { href: "/docs/mcp", label: "Connect an MCP client" },
  { href: "/docs/deploy", label: "Deploy checklist" },
];

export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <Link href="/" className="text-lg font-semibold tracking-tight text-slate-900">
            AgentDraft <span className="font-normal text-slate-500">docs</span>
          </Link>
          <nav aria-label="Documentation">
            <ul className="flex flex-wrap gap-x-5 gap-y-1 text-sm">
              {NAV.map((n) => (
                <li key={n.href}>
                  <Link href={n.href} className="text-slate-700 hover:text-indigo-800 hover:underline">
                    {n.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        </div>
      </header>
      {children}
    </div>
  );
}
