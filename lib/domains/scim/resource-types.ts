import { scimError } from "./errors";
import { refuseFilter } from "./schema-definitions";
import { GROUP_SCHEMA, listResponse, USER_SCHEMA } from "./serialize";

export const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";

/** The resource types this server serves (RFC 7643 §6): Users and Groups, without schema extensions. */
const RESOURCE_TYPES = [
  { id: "User", name: "User", endpoint: "/Users", description: "A person of the workspace (an AgentDraft member)", schema: USER_SCHEMA },
  { id: "Group", name: "Group", endpoint: "/Groups", description: "A group of people; role groups set AgentDraft roles", schema: GROUP_SCHEMA },
] as const;

const resourceType = (t: (typeof RESOURCE_TYPES)[number], base: string) => ({
  schemas: [RESOURCE_TYPE_SCHEMA],
  ...t,
  schemaExtensions: [],
  meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/${t.id}` },
});

/** GET /ResourceTypes (RFC 7644 §4): every resource type, as a ListResponse. A filter is refused with 403. */
export function listResourceTypes(url: URL, base: string) {
  refuseFilter(url);
  return listResponse(
    RESOURCE_TYPES.map((t) => resourceType(t, base)),
    RESOURCE_TYPES.length,
    1,
  );
}

/** GET /ResourceTypes/{id}: User or Group, or 404. */
export function getResourceType(id: string, base: string) {
  const t = RESOURCE_TYPES.find((x) => x.id === id);
  if (!t) throw scimError(404, null, `No resource type ${id}: this server serves User and Group.`);
  return resourceType(t, base);
}
