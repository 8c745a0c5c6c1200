import { buildOpenApiDocument } from "@/lib/composition/openapi-document";
import { newRequestId } from "@/lib/platform/api/request-ids";

let cached: string | undefined;

// GET /api/v1/openapi.json — the machine-readable API description (public)
export function GET() {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return new Response(cached, {
    headers: { "content-type": "application/json", "x-request-id": newRequestId(), "cache-control": "public, max-age=300" },
  });
}
