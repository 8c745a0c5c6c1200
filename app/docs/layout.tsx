import Link from "next/link";
import type { ReactNode } from "react";
import { DOCS_PAGES } from "@/lib/composition/docs/pages";

// The docs' menu: every page of lib/composition/docs/pages.ts, and the machine-readable API document.
const NAV = [...DOCS_PAGES.map((p) => ({ href: p.route, label: p.title })), { href: "/api/v1/openapi.json", label: "openapi.json" }];

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
