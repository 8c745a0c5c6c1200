import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, list } from "@/lib/platform/api/responses";
import { acquireLeaseOp, listLeasesOp } from "@/lib/domains/leases/operations";
import { acquireLease } from "@/lib/domains/leases/acquire-lease";
import { listLeases } from "@/lib/domains/leases/get-lease";
import { serializeLease } from "@/lib/domains/leases/serialize";
import { gateLease } from "@/lib/domains/leases/lease-gate";
import { APPROVAL_HEADER } from "@/lib/domains/approvals/action-gate";

// POST /api/v1/leases — acquire an exclusive lease with a fencing token
export const POST = withApiKey(acquireLeaseOp, async ({ req, actor, body }) =>
  created(serializeLease(await gateLease(actor, body, req.headers.get(APPROVAL_HEADER), () => acquireLease(actor, body)))),
);

// GET /api/v1/leases?resource&status — list leases
export const GET = withApiKey(listLeasesOp, async ({ key, query }) => {
  const { items, hasMore } = await listLeases(key, query);
  return list(items, hasMore);
});
