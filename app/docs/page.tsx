import type { Metadata } from "next";
import { GuidePage } from "./guide-page";

export const metadata: Metadata = { title: "Getting started" };
export const dynamic = "force-static";

// GET /docs — the getting-started guide for agent developers (docs/getting-started.md)
export default function GettingStartedPage() {
  return <GuidePage />;
}
