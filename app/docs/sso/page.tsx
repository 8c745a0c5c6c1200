import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/sso");
export const dynamic = "force-static";

// GET /docs/sso — single sign-on with OpenID Connect or SAML 2.0: Okta, Microsoft Entra ID, Google Workspace (docs/sso.md)
export default function SsoDocsPage() {
  return <GuidePage file="sso.md" />;
}
