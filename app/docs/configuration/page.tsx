import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/configuration");
export const dynamic = "force-static";

// GET /docs/configuration — every environment variable (generated from lib/platform/config/env.ts) and the fixed limits (docs/configuration.md)
export default function ConfigurationPage() {
  return <GuidePage file="configuration.md" />;
}
