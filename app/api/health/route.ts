import { checkHealth } from "@/lib/health/check-health";

export const dynamic = "force-dynamic";

// GET /api/health — database reachability, driver and migration state.
export async function GET() {
  const health = await checkHealth();
  return Response.json(health, {
    status: health.status === "down" ? 503 : 200,
    headers: { "cache-control": "no-store" },
  });
}
