import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/security");
export const dynamic = "force-static";

// GET /docs/security — security promises and the test that keeps each, known limits (docs/security.md)
export default function SecurityPage() {
  return <GuidePage file="security.md" />;
}
