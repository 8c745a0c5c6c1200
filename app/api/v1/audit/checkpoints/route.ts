import { withApiKey } from "@/lib/platform/api/with-api-key";
import { list } from "@/lib/platform/api/responses";
import { AppError } from "@/lib/platform/errors";
import { listCheckpointsOp } from "@/lib/domains/audit/operations";
import { listCheckpoints, serializeCheckpoint } from "@/lib/platform/audit/checkpoints";

// GET /api/v1/audit/checkpoints — signed chain heads, for a witness
export const GET = withApiKey(listCheckpointsOp, async ({ key, query }) => {
  if (key.agentId) throw new AppError("forbidden", "Checkpoints cover the whole workspace's trail: use a workspace-wide key.");
  const { items, hasMore } = await listCheckpoints(key.workspaceId, query);
  return list(items.map(serializeCheckpoint), hasMore);
});
