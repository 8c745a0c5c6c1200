import type { Metadata } from "next";
import { GuidePage } from "../guide-page";

export const metadata: Metadata = { title: "Python SDK" };
export const dynamic = "force-static";

// GET /docs/python — the Python client, generated from the OpenAPI document (docs/python-sdk.md)
export default function PythonSdkGuidePage() {
  return <GuidePage file="python-sdk.md" />;
}
