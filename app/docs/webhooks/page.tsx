import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/webhooks");
export const dynamic = "force-static";

// GET /docs/webhooks — webhook endpoints, events, signatures, delivery, the SSRF guard (docs/webhooks.md)
export default function WebhooksPage() {
  return <GuidePage file="webhooks.md" />;
}
