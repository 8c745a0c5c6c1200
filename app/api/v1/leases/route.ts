import { withApiKey } from "@/lib/api/with-api-key";
import { created, list } from "@/lib/api/responses";
import { acquireLeaseOp, listLeasesOp } from "@/lib/leases/operations";
import { acquireLease } from "@/lib/leases/acquire-lease";
import { listLeases } from "@/lib/leases/get-lease";
import { serializeLease } from "@/lib/leases/serialize";
import { gateLease } from "@/lib/leases/lease-gate";
import { APPROVAL_HEADER } from "@/lib/approvals/action-gate";

// POST /api/v1/leases — acquire an exclusive lease with a fencing token
export const POST = withApiKey(acquireLeaseOp, async ({ req, actor, body }) =>
  created(serializeLease(await gateLease(actor, body, req.headers.get(APPROVAL_HEADER), () => acquireLease(actor, body)))),
);

// GET /api/v1/leases?resource&status — list leases
export const GET = withApiKey(listLeasesOp, async ({ key, query }) => {
  const { items, hasMore } = await listLeases(key, query);
  return list(items, hasMore);
});
