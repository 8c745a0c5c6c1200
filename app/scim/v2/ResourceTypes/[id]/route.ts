import { scimRoute } from "@/lib/domains/scim/respond";
import { getResourceType } from "@/lib/domains/scim/resource-types";

// GET /scim/v2/ResourceTypes/{id} — User or Group
export const GET = scimRoute(async ({ base, id }) => ({ status: 200, body: getResourceType(id, base) }));
