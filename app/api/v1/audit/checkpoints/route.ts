import { withApiKey } from "@/lib/api/with-api-key";
import { list } from "@/lib/api/responses";
import { AppError } from "@/lib/errors";
import { listCheckpointsOp } from "@/lib/audit/operations";
import { listCheckpoints, serializeCheckpoint } from "@/lib/audit/checkpoints";

// GET /api/v1/audit/checkpoints — signed chain heads, for a witness
export const GET = withApiKey(listCheckpointsOp, async ({ key, query }) => {
  if (key.agentId) throw new AppError("forbidden", "Checkpoints cover the whole workspace's trail: use a workspace-wide key.");
  const { items, hasMore } = await listCheckpoints(key.workspaceId, query);
  return list(items.map(serializeCheckpoint), hasMore);
});
