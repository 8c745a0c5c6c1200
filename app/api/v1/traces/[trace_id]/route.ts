import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getTraceOp } from "@/lib/domains/traces/operations";
import { buildTrace } from "@/lib/domains/traces/build-trace";

// GET /api/v1/traces/{id} — handoff tree and timeline of a trace or correlation id
export const GET = withApiKey(getTraceOp, async ({ key, actor, params }) => json(await buildTrace(key, params.trace_id!, actor)));
