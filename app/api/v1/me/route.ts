import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { describeKey, getMeOp } from "@/lib/api-keys/me";

// GET /api/v1/me — the workspace, agent and scopes of the calling key
export const GET = withApiKey(getMeOp, async ({ key }) => json(await describeKey(key)));
