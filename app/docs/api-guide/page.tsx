import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/api-guide");
export const dynamic = "force-static";

// GET /docs/api-guide — the agent API's rules (keys, errors, idempotency, pagination, rate limits), the TypeScript client and MCP (docs/api-guide.md)
export default function ApiGuidePage() {
  return <GuidePage file="api-guide.md" />;
}
