import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/cli");
export const dynamic = "force-static";

// GET /docs/cli — the operator CLI (docs/cli.md)
export default function CliPage() {
  return <GuidePage file="cli.md" />;
}
