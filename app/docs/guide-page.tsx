import fs from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import { docsPage } from "@/lib/composition/docs/pages";
import { renderGuide } from "@/lib/composition/docs/render-guide";
import "./guide.css";

/** A guide from docs/*.md with its table of contents beside it (every /docs page but the API reference). */
export function GuidePage({ file }: { file?: string }) {
  const { html, sections } = renderGuide(file ? fs.readFileSync(path.join(process.cwd(), "docs", file), "utf8") : undefined);
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

/** A docs page's title, as lib/composition/docs/pages.ts names it. */
export const guideMetadata = (route: string): Metadata => ({ title: docsPage(route).title });
