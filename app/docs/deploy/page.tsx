import type { Metadata } from "next";
import { GuidePage } from "../guide-page";

export const metadata: Metadata = { title: "Deploy checklist" };
export const dynamic = "force-static";

// GET /docs/deploy — what to set and check to deploy on Vercel, previews included (docs/deploy-checklist.md)
export default function DeployChecklistPage() {
  return <GuidePage file="deploy-checklist.md" />;
}
