import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/background-work");
export const dynamic = "force-static";

// GET /docs/background-work — every job kind (generated from lib/composition/job-kinds.ts), the embedded engine, Inngest (docs/background-work.md)
export default function BackgroundWorkPage() {
  return <GuidePage file="background-work.md" />;
}
