import { withApiKey } from "@/lib/platform/api/with-api-key";
import { created, list } from "@/lib/platform/api/responses";
import { createDomainOp, listDomainsOp, serializeDomain } from "@/lib/domains/mail/domain-operations";
import { createDomain, inboxCounts, listDomains } from "@/lib/domains/mail/mail-domains";

// POST /api/v1/domains — add the workspace's own mail domain
export const POST = withApiKey(createDomainOp, async ({ actor, body }) => created(serializeDomain(await createDomain(actor, body))));

// GET /api/v1/domains — list the workspace's domains
export const GET = withApiKey(listDomainsOp, async ({ actor, query }) => {
  const { items, hasMore } = await listDomains(actor, query);
  const counts = await inboxCounts(items.map((d) => d.id));
  return list(items.map((d) => serializeDomain(d, counts.get(d.id) ?? 0)), hasMore);
});
