import type { Metadata } from "next";
import { GuidePage } from "../guide-page";

export const metadata: Metadata = { title: "Notification channels" };
export const dynamic = "force-static";

// GET /docs/notification-channels — connecting Slack, Teams and Discord (docs/notification-channels.md)
export default function NotificationChannelsGuide() {
  return <GuidePage file="notification-channels.md" />;
}
