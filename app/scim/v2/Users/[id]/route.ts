import { scimRoute } from "@/lib/domains/scim/respond";
import { deleteUser, getUser, patchUser, replaceUser } from "@/lib/domains/scim/users";

// /scim/v2/Users/{id} — read, replace, patch (active false deprovisions), delete
export const GET = scimRoute(async ({ actor, base, id }) => ({ status: 200, body: await getUser(actor, id, base) }));
export const PUT = scimRoute(async ({ actor, base, body, id }) => ({ status: 200, body: await replaceUser(actor, id, await body(), base) }));
export const PATCH = scimRoute(async ({ actor, base, body, id }) => ({ status: 200, body: await patchUser(actor, id, await body(), base) }));
export const DELETE = scimRoute(async ({ actor, id }) => (await deleteUser(actor, id), { status: 204 }));
