import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { serializeDomain, verifyDomainOp } from "@/lib/domains/mail/domain-operations";
import { inboxCounts, verifyDomain } from "@/lib/domains/mail/mail-domains";

// POST /api/v1/domains/{id}/verify — check the DNS records now
export const POST = withApiKey(verifyDomainOp, async ({ actor, params }) => {
  const domain = await verifyDomain(actor, params.id!);
  return json(serializeDomain(domain, (await inboxCounts([domain.id])).get(domain.id) ?? 0));
});
