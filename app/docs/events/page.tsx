import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/events");
export const dynamic = "force-static";

// GET /docs/events — the event stream for agents without a public URL (docs/live-events.md)
export default function LiveEventsPage() {
  return <GuidePage file="live-events.md" />;
}
