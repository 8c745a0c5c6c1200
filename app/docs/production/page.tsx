import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/production");
export const dynamic = "force-static";

// GET /docs/production — production: start-up checks, health, deploying on Vercel + Neon + Inngest + Resend (docs/production.md)
export default function ProductionPage() {
  return <GuidePage file="production.md" />;
}
