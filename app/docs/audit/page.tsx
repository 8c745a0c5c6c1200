import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/audit");
export const dynamic = "force-static";

// GET /docs/audit — the audit trail: hash chain, sealing, signed checkpoints (docs/audit-trail.md)
export default function AuditTrailPage() {
  return <GuidePage file="audit-trail.md" />;
}
