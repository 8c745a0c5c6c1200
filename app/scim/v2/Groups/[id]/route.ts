import { scimRoute } from "@/lib/domains/scim/respond";
import { deleteGroup, getGroup, patchGroup, replaceGroup } from "@/lib/domains/scim/groups";

// /scim/v2/Groups/{id} — read, replace, patch membership and name (204), delete
export const GET = scimRoute(async ({ req, actor, base, id }) => ({
  status: 200,
  body: await getGroup(actor, id, base, /(^|,)\s*members\s*(,|$)/i.test(new URL(req.url).searchParams.get("excludedAttributes") ?? "")),
}));
export const PUT = scimRoute(async ({ actor, base, body, id }) => ({ status: 200, body: await replaceGroup(actor, id, await body(), base) }));
export const PATCH = scimRoute(async ({ actor, body, id }) => (await patchGroup(actor, id, await body()), { status: 204 }));
export const DELETE = scimRoute(async ({ actor, id }) => (await deleteGroup(actor, id), { status: 204 }));
