import type { Metadata } from "next";
import { GuidePage } from "../guide-page";

export const metadata: Metadata = { title: "Coordination primitives" };
export const dynamic = "force-static";

// GET /docs/coordination — holds bound to approvals, priority ceilings, leases, message claims (docs/coordination.md)
export default function CoordinationPage() {
  return <GuidePage file="coordination.md" />;
}
