import { publicJwks } from "@/lib/domains/approvals/receipts";
import { AppError } from "@/lib/platform/errors";
import { plainJsonRoute } from "@/lib/platform/api/plain-route";

export const dynamic = "force-dynamic";

// GET /.well-known/jwks.json?workspace_id=ws_... — one workspace's keys that sign approval receipts
const handle = plainJsonRoute(async (req) => {
  const workspaceId = new URL(req.url).searchParams.get("workspace_id");
  if (!workspaceId) {
    throw new AppError("validation_failed", "Name the workspace whose receipts you verify: ?workspace_id=ws_...", {
      errors: [{ field: "workspace_id", message: "required" }],
    });
  }
  return publicJwks(workspaceId);
});

export async function GET(req: Request) {
  const res = await handle(req);
  if (res.ok) res.headers.set("cache-control", "public, max-age=300");
  return res;
}
