import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/approvals");
export const dynamic = "force-static";

// GET /docs/approvals — approvals: quorum, policies, receipts, taint, spending an approval once (docs/approvals.md)
export default function ApprovalsPage() {
  return <GuidePage file="approvals.md" />;
}
