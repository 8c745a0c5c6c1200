import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getTraceOp } from "@/lib/traces/operations";
import { buildTrace } from "@/lib/traces/build-trace";

// GET /api/v1/traces/{id} — handoff tree and timeline of a trace or correlation id
export const GET = withApiKey(getTraceOp, async ({ key, params }) => json(await buildTrace(key, params.trace_id!)));
