import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/web-app");
export const dynamic = "force-static";

// GET /docs/web-app — the web app: passkeys, first run, members and roles, captured mail (docs/web-app.md)
export default function WebAppDocsPage() {
  return <GuidePage file="web-app.md" />;
}
