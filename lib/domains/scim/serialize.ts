import type { ScimGroupRow, ScimUserRow } from "../../../db/schema";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

/** Where the SCIM resources of this request live: `https://host/scim/v2`. */
export const scimBase = (req: Request) => `${new URL(req.url).origin}/scim/v2`;

const version = (at: Date) => `W/"${at.getTime().toString(36)}"`;

export function serializeUser(row: ScimUserRow, groups: { id: string; displayName: string }[], base: string) {
  const formatted = [row.givenName, row.familyName].filter(Boolean).join(" ");
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    userName: row.userName,
    ...(row.givenName !== null || row.familyName !== null
      ? { name: { ...(row.givenName !== null ? { givenName: row.givenName } : {}), ...(row.familyName !== null ? { familyName: row.familyName } : {}), formatted } }
      : {}),
    ...(row.displayName !== null ? { displayName: row.displayName } : {}),
    emails: [{ value: row.email, type: "work", primary: true }],
    active: row.active,
    groups: groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${base}/Groups/${g.id}` })),
    meta: { resourceType: "User", created: row.createdAt.toISOString(), lastModified: row.updatedAt.toISOString(), location: `${base}/Users/${row.id}`, version: version(row.updatedAt) },
  };
}

export function serializeGroup(row: ScimGroupRow, members: { id: string; userName: string }[] | null, base: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    displayName: row.displayName,
    ...(members ? { members: members.map((m) => ({ value: m.id, display: m.userName, $ref: `${base}/Users/${m.id}` })) } : {}),
    meta: { resourceType: "Group", created: row.createdAt.toISOString(), lastModified: row.updatedAt.toISOString(), location: `${base}/Groups/${row.id}`, version: version(row.updatedAt) },
  };
}

export function listResponse<T>(resources: T[], totalResults: number, startIndex: number) {
  return { schemas: [LIST_SCHEMA], totalResults, startIndex, itemsPerPage: resources.length, Resources: resources };
}
