import type { Metadata } from "next";
import { GuidePage } from "../guide-page";

export const metadata: Metadata = { title: "Calendar sync: Google and Microsoft 365" };
export const dynamic = "force-static";

// GET /docs/calendar-sync — linking calendars to Google Calendar and Microsoft 365 / Outlook (docs/calendar-sync.md)
export default function CalendarSyncGuidePage() {
  return <GuidePage file="calendar-sync.md" />;
}
