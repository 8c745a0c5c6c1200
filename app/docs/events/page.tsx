import fs from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import { renderGuide } from "@/lib/docs/render-guide";
import "../guide.css";

export const metadata: Metadata = { title: "Live events" };
export const dynamic = "force-static";

// GET /docs/events — the event stream for agents without a public URL (docs/live-events.md)
export default function LiveEventsPage() {
  const { html } = renderGuide(fs.readFileSync(path.join(process.cwd(), "docs", "live-events.md"), "utf8"));
  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <main className="guide min-w-0" dangerouslySetInnerHTML={{ __html: html }} />
    </div>
  );
}
