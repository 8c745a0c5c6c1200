import fs from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import { renderGuide } from "@/lib/docs/render-guide";
import "../guide.css";

export const metadata: Metadata = { title: "Coordination primitives" };
export const dynamic = "force-static";

// GET /docs/coordination — holds bound to approvals, priority ceilings, leases, message claims (docs/coordination.md)
export default function CoordinationPage() {
  const { html, sections } = renderGuide(fs.readFileSync(path.join(process.cwd(), "docs", "coordination.md"), "utf8"));
  return (
    <div className="mx-auto flex max-w-7xl gap-10 px-4 py-8">
      <nav aria-label="On this page" className="sticky top-6 hidden w-56 shrink-0 self-start lg:block">
        <p className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">On this page</p>
        <ol className="space-y-1.5 text-sm">
          {sections.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`} className="text-slate-700 hover:text-indigo-800 hover:underline">
                {s.title}
              </a>
            </li>
          ))}
        </ol>
      </nav>
      <main className="guide min-w-0 max-w-4xl flex-1" dangerouslySetInnerHTML={{ __html: html }} />
    </div>
  );
}
