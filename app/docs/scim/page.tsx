import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/scim");
export const dynamic = "force-static";

// GET /docs/scim — SCIM 2.0 provisioning from Okta and Microsoft Entra ID (docs/scim.md)
export default function ScimDocsPage() {
  return <GuidePage file="scim.md" />;
}
