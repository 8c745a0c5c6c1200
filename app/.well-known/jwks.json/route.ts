import { publicJwks } from "@/lib/approvals/receipts";

export const dynamic = "force-dynamic";

// GET /.well-known/jwks.json[?workspace_id=ws_...] — public keys that sign approval receipts
export async function GET(req: Request) {
  const workspaceId = new URL(req.url).searchParams.get("workspace_id") ?? undefined;
  return Response.json(await publicJwks(workspaceId), { headers: { "cache-control": "public, max-age=300" } });
}
