import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { describeKey, getMeOp } from "@/lib/domains/api-keys/me";

// GET /api/v1/me — the workspace, agent and scopes of the calling key
export const GET = withApiKey(getMeOp, async ({ key }) => json(await describeKey(key)));
