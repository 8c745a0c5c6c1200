import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { deleteDomainOp, getDomainOp, serializeDomain } from "@/lib/domains/mail/domain-operations";
import { deleteDomain, getDomain, inboxCounts } from "@/lib/domains/mail/mail-domains";

// GET /api/v1/domains/{id} — a domain with its DNS records and their states
export const GET = withApiKey(getDomainOp, async ({ actor, params }) => {
  const domain = await getDomain(actor, params.id!);
  return json(serializeDomain(domain, (await inboxCounts([domain.id])).get(domain.id) ?? 0));
});

// DELETE /api/v1/domains/{id} — refused while inboxes use it
export const DELETE = withApiKey(deleteDomainOp, async ({ actor, params }) => {
  const d = await deleteDomain(actor, params.id!);
  return json({ id: d.id, object: "domain", name: d.name, deleted: true });
});
