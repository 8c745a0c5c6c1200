import type { Metadata } from "next";
import { GuidePage } from "../guide-page";

export const metadata: Metadata = { title: "Handoffs between agents" };
export const dynamic = "force-static";

// GET /docs/handoffs — agents handing work to each other, traces and agent notes (docs/handoffs.md)
export default function HandoffsGuidePage() {
  return <GuidePage file="handoffs.md" />;
}
