import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/holds");
export const dynamic = "force-static";

// GET /docs/holds — calendars and holds: the conflict engine, one round trip per operation, coordination primitives in short (docs/holds.md)
export default function HoldsPage() {
  return <GuidePage file="holds.md" />;
}
