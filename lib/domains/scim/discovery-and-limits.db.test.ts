// SCIM's discovery endpoints (/Schemas, /ResourceTypes: RFC 7643 §6-7, RFC 7644 §4) and the
// per-token rate limit of /scim/v2, over real HTTP. A small bucket here, so the limit is reached.
import { describe, expect, it } from "vitest";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { operatorActor } from "../../platform/actor";
import { createScimToken } from "./tokens";

setTestEnv({ SCIM_RATE_LIMIT_BURST: "40", SCIM_RATE_LIMIT_PER_SECOND: "0.5" });
const { api, url } = serveApiForTests();

const SCIM = "application/scim+json";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

async function provider() {
  const { workspace } = await newWorkspace();
  const { token } = await createScimToken(operatorActor(workspace.id), { name: "idp" });
  return { workspace, token, get: (path: string) => api(`/scim/v2${path}`, { key: token }) };
}

type Attribute = { name: string; type: string; multiValued: boolean; required: boolean; mutability: string; returned: string; uniqueness: string; caseExact: boolean; description: string; subAttributes?: Attribute[] };

describe("/scim/v2/Schemas", () => {
  it("lists the User and Group schemas, each attribute with its RFC 7643 §7 characteristics, and serves each by its URN", async () => {
    const { get } = await provider();
    const list = await get("/Schemas");
    expect(list.status).toBe(200);
    expect(list.headers.get("content-type")).toBe(SCIM);
    expect(list.json).toMatchObject({ schemas: [LIST], totalResults: 2, startIndex: 1, itemsPerPage: 2 });
    expect(list.json.Resources.map((s: { id: string }) => s.id)).toEqual([USER, GROUP]);
    for (const schema of list.json.Resources) {
      expect(schema.schemas).toEqual(["urn:ietf:params:scim:schemas:core:2.0:Schema"]);
      expect(schema.meta).toEqual({ resourceType: "Schema", location: `${url()}/scim/v2/Schemas/${schema.id}` });
      const every = (attrs: Attribute[]): Attribute[] => attrs.flatMap((a) => [a, ...every(a.subAttributes ?? [])]);
      for (const a of every(schema.attributes)) {
        expect(Object.keys(a)).toEqual(expect.arrayContaining(["name", "type", "multiValued", "description", "required", "caseExact", "mutability", "returned", "uniqueness"]));
        expect(["string", "boolean", "decimal", "integer", "dateTime", "binary", "reference", "complex"]).toContain(a.type);
        if (a.type === "complex") expect(a.subAttributes!.length).toBeGreaterThan(0);
        else expect(a.subAttributes).toBeUndefined();
      }
    }
    const user = await get(`/Schemas/${USER}`);
    expect(user.status).toBe(200);
    expect(user.json).toMatchObject({ id: USER, name: "User" });
    const names = user.json.attributes.map((a: Attribute) => a.name);
    expect(names).toEqual(["userName", "name", "displayName", "emails", "active", "groups"]);
    expect(user.json.attributes[0]).toMatchObject({ name: "userName", required: true, uniqueness: "server" });
    expect(user.json.attributes.find((a: Attribute) => a.name === "groups")).toMatchObject({ multiValued: true, mutability: "readOnly" });
    expect((await get(`/Schemas/${GROUP}`)).json.attributes.map((a: Attribute) => a.name)).toEqual(["displayName", "members"]);
    // What the Users endpoint answers keeps to the schema: every attribute of a User is in it.
    const created = await api("/scim/v2/Users", { method: "POST", key: (await provider()).token, rawBody: JSON.stringify({ userName: `ada-${process.pid}@schema.test`, name: { givenName: "Ada" } }), headers: { "content-type": SCIM } });
    const served = Object.keys(created.json).filter((k) => !["schemas", "id", "externalId", "meta"].includes(k));
    expect(names).toEqual(expect.arrayContaining(served));
  });

  it("answers 404 for an unknown schema and 403 for a filter (RFC 7644 §4), as SCIM error documents", async () => {
    const { get } = await provider();
    const missing = await get("/Schemas/urn:ietf:params:scim:schemas:extension:enterprise:2.0:User");
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ schemas: [ERROR], status: "404" });
    const filtered = await get(`/Schemas?filter=${encodeURIComponent('id eq "x"')}`);
    expect(filtered.status).toBe(403);
    expect(filtered.json).toMatchObject({ schemas: [ERROR], status: "403" });
    expect((await api("/scim/v2/Schemas")).status).toBe(401);
  });
});

describe("/scim/v2/ResourceTypes", () => {
  it("lists User and Group with their endpoints and schemas, serves each by id; unknown 404, filter 403, no token 401", async () => {
    const { get } = await provider();
    const list = await get("/ResourceTypes");
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ schemas: [LIST], totalResults: 2, startIndex: 1, itemsPerPage: 2 });
    expect(list.json.Resources).toEqual([
      expect.objectContaining({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"], id: "User", name: "User", endpoint: "/Users", schema: USER, schemaExtensions: [], meta: { resourceType: "ResourceType", location: `${url()}/scim/v2/ResourceTypes/User` } }),
      expect.objectContaining({ id: "Group", name: "Group", endpoint: "/Groups", schema: GROUP }),
    ]);
    expect((await get("/ResourceTypes/Group")).json).toMatchObject({ id: "Group", endpoint: "/Groups", schema: GROUP });
    // Each resource type's schema is served at /Schemas, and its endpoint answers.
    for (const t of list.json.Resources) {
      expect((await get(`/Schemas/${t.schema}`)).status).toBe(200);
      expect((await get(t.endpoint)).status).toBe(200);
    }
    expect((await get("/ResourceTypes/Device")).json).toMatchObject({ schemas: [ERROR], status: "404" });
    expect((await get(`/ResourceTypes?filter=${encodeURIComponent('name eq "User"')}`)).status).toBe(403);
    expect((await api("/scim/v2/ResourceTypes")).status).toBe(401);
  });
});

describe("the per-token rate limit", () => {
  it("answers 429 with a SCIM error document and Retry-After once a token's bucket is empty; another token of the workspace is not slowed", async () => {
    const { workspace, get } = await provider();
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 45 && !limited; i++) {
      const res = await get("/ServiceProviderConfig");
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    // The bucket holds 40 and refills one every two seconds: at most a couple more pass.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(40);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(43);
    expect(limited).toBeDefined();
    expect(limited!.headers.get("content-type")).toBe(SCIM);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited!.json).toMatchObject({ schemas: [ERROR], status: "429", detail: expect.stringMatching(/Too many SCIM requests/) });
    expect((await get("/Users")).status).toBe(429);

    const { token: second } = await createScimToken(operatorActor(workspace.id), { name: "second idp" });
    expect((await api("/scim/v2/Users", { key: second })).status).toBe(200);
    // An unauthenticated request is 401, not counted against anyone's bucket.
    expect((await api("/scim/v2/Users")).status).toBe(401);
  });
});
