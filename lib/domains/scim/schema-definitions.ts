import { scimError } from "./errors";
import { GROUP_SCHEMA, listResponse, USER_SCHEMA } from "./serialize";

/**
 * The schemas this server serves (RFC 7643 §7), each attribute as AgentDraft keeps it: what an
 * identity provider reads at /scim/v2/Schemas to map its attributes. Attributes a provider sends
 * beyond these (title, the enterprise extension) are accepted and not stored, so not listed.
 */
export const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

type Attribute = {
  name: string;
  type: "string" | "boolean" | "complex" | "reference";
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: "readOnly" | "readWrite" | "immutable" | "writeOnly";
  returned: "always" | "never" | "default" | "request";
  uniqueness: "none" | "server" | "global";
  subAttributes?: Attribute[];
  canonicalValues?: string[];
  referenceTypes?: string[];
};

const attr = (name: string, type: Attribute["type"], description: string, more: Partial<Attribute> = {}): Attribute => ({
  name,
  type,
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...more,
});

const ref = (description: string, referenceTypes: string[]) => attr("$ref", "reference", description, { mutability: "readOnly", referenceTypes });

const USER_ATTRIBUTES: Attribute[] = [
  attr("userName", "string", "The person's unique identifier at the identity provider; an email address is used as the work email when emails has none. Unique within the workspace.", { required: true, uniqueness: "server" }),
  attr("name", "complex", "The person's name; AgentDraft keeps the given and family names.", {
    subAttributes: [
      attr("formatted", "string", "Given and family names joined (computed).", { mutability: "readOnly" }),
      attr("familyName", "string", "The family name."),
      attr("givenName", "string", "The given name."),
    ],
  }),
  attr("displayName", "string", "The name shown for the member in AgentDraft."),
  attr("emails", "complex", "Email addresses: the primary one (else type work, else the first) is the member's work email. AgentDraft keeps one.", {
    multiValued: true,
    subAttributes: [
      attr("value", "string", "The email address."),
      attr("type", "string", "The kind of address.", { canonicalValues: ["work", "home", "other"] }),
      attr("primary", "boolean", "Whether this is the person's primary address."),
    ],
  }),
  attr("active", "boolean", "false deprovisions: the member loses access at once (sessions, live streams, pending votes); true restores it."),
  attr("groups", "complex", "The groups the person belongs to, read-only: change membership through the Group resource.", {
    multiValued: true,
    mutability: "readOnly",
    subAttributes: [
      attr("value", "string", "The group's id.", { mutability: "readOnly" }),
      ref("The group's URI.", ["Group"]),
      attr("display", "string", "The group's displayName.", { mutability: "readOnly" }),
    ],
  }),
];

const GROUP_ATTRIBUTES: Attribute[] = [
  attr("displayName", "string", "The group's name, unique within the workspace. agentdraft-admin, agentdraft-approver and agentdraft-viewer set their members' roles.", { required: true, uniqueness: "server" }),
  attr("members", "complex", "The group's members (Users).", {
    multiValued: true,
    subAttributes: [
      attr("value", "string", "The User's id.", { mutability: "immutable" }),
      ref("The User's URI.", ["User"]),
      attr("display", "string", "The User's userName.", { mutability: "readOnly" }),
    ],
  }),
];

const SCHEMAS = [
  { id: USER_SCHEMA, name: "User", description: "A person of the workspace (an AgentDraft member)", attributes: USER_ATTRIBUTES },
  { id: GROUP_SCHEMA, name: "Group", description: "A group of people; role groups set AgentDraft roles", attributes: GROUP_ATTRIBUTES },
] as const;

const schemaResource = (s: (typeof SCHEMAS)[number], base: string) => ({
  schemas: [SCHEMA_SCHEMA],
  ...s,
  meta: { resourceType: "Schema", location: `${base}/Schemas/${s.id}` },
});

/** GET /Schemas (RFC 7644 §4): every schema, as a ListResponse. A filter is refused with 403, as the RFC asks. */
export function listSchemas(url: URL, base: string) {
  refuseFilter(url);
  return listResponse(
    SCHEMAS.map((s) => schemaResource(s, base)),
    SCHEMAS.length,
    1,
  );
}

/** GET /Schemas/{urn}: one schema, or 404. */
export function getSchema(id: string, base: string) {
  const s = SCHEMAS.find((x) => x.id === id);
  if (!s) throw scimError(404, null, `No schema ${id}: this server serves ${SCHEMAS.map((x) => x.id).join(" and ")}.`);
  return schemaResource(s, base);
}

/**
 * RFC 7644 §4: a filter on the discovery endpoints is answered 403, so a client never takes the
 * whole list for the matches of a filter it believes was applied.
 */
export function refuseFilter(url: URL) {
  if (url.searchParams.has("filter")) throw scimError(403, null, "Filtering is not supported on this endpoint (RFC 7644 §4): request it without a filter.");
}
