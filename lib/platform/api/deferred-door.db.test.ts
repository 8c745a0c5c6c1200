// @suite pooled moved-clock
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { calendars, holds, idempotencyKeys } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newKey, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { createCalendar } from "../../domains/calendars/calendars";
import { operatorActor } from "../actor";
import { newId } from "../ids";
import { revokeKey } from "../../domains/api-keys/revoke-key";
import { countStatements } from "../../../test/helpers/statement-counter";
import { onUtcDay } from "../../../test/helpers/clock";

// A small burst and a refill so slow (one token per 100 s) that no test sees one.
setTestEnv({ API_RATE_LIMIT_BURST: "4", API_RATE_LIMIT_PER_SECOND: "0.01", API_WORKSPACE_RATE_LIMIT_BURST: "1000", API_WORKSPACE_RATE_LIMIT_PER_SECOND: "1000" });
const { api } = serveApiForTests();

const T = onUtcDay(30);
const slot = (h: number) => ({ start_time: T(h), end_time: T(h + 1), priority: 50, hold_ttl_seconds: 60 });

async function setup() {
  const { workspace } = await newWorkspace();
  const cal = await createCalendar(operatorActor(workspace.id), { name: "door" });
  const { key, row } = await newKey(workspace.id);
  const place = (h: number, extra: Record<string, unknown> = {}, idempotencyKey?: string) =>
    api(`/api/v1/calendars/${cal.id}/holds`, { key, body: { ...slot(h), ...extra }, headers: idempotencyKey ? { "idempotency-key": idempotencyKey } : {} });
  const heldRows = async () => (await (await getDb()).select({ id: holds.id }).from(holds).where(eq(holds.workspaceId, workspace.id))).length;
  return { workspace, cal, key, row, place, heldRows };
}

describe("the door inside the operation's statement", () => {
  it("places and commits a hold in one statement each once the key is known here", async () => {
    const { key, place } = await setup();
    expect((await place(1)).status).toBe(201); // the first request admits the key on its own: two statements
    // Statements as the driver receives them (named prepared ones included: db/prepared.ts).
    const statements = await countStatements();
    try {
      const placed = await place(3);
      expect(placed.status).toBe(201);
      expect(placed.headers.get("ratelimit-remaining")).toBe("2");
      expect(statements.count()).toBe(1);
      const committed = await api(`/api/v1/holds/${placed.json.id}/commit`, { key, method: "POST" });
      expect(committed.json).toMatchObject({ status: "committed", event_ids: [expect.any(String)] });
      expect(committed.headers.get("ratelimit-remaining")).toBe("1");
      expect(statements.count()).toBe(2);
      // A request the handler refuses (not found) still went through the door, in its statement.
      expect((await api("/api/v1/holds/hld_0000000000000000000000000/release", { key, method: "POST" })).status).toBe(404);
      expect(statements.count()).toBe(3);
    } finally {
      statements.restore();
    }
  });

  it("GET /v1/me reads the workspace, the agent and the taint in the door's statement: one round trip", async () => {
    const { workspace, key, row } = await setup();
    const first = await api("/api/v1/me", { key });
    expect(first.status).toBe(200); // the key is admitted on its own the first time
    const statements = await countStatements();
    try {
      const me = await api("/api/v1/me", { key });
      expect(me.status).toBe(200);
      expect(me.json).toEqual(first.json);
      expect(me.json).toMatchObject({ object: "me", workspace: { id: workspace.id, name: workspace.name }, api_key: { id: row.id }, taint: null });
      expect(me.headers.get("ratelimit-remaining")).toBe("2");
      expect(statements.count()).toBe(1);
    } finally {
      statements.restore();
    }
    await revokeKey(operatorActor(workspace.id), row.id);
    expect((await api("/api/v1/me", { key })).status).toBe(401);
  });

  it("a key revoked since it was admitted here changes nothing: 401, and no hold", async () => {
    const { workspace, row, place, heldRows } = await setup();
    expect((await place(1)).status).toBe(201);
    await revokeKey(operatorActor(workspace.id), row.id);
    const refused = await place(3);
    expect(refused.status).toBe(401);
    expect(refused.json.detail).toMatch(/revoked/);
    expect(await heldRows()).toBe(1);
    // Forgotten: the next request is the door on its own, and still 401.
    expect((await place(5)).status).toBe(401);
    // A request that fails before its statement (a bad body) still hears the door first.
    expect((await place(7, { priority: "high" })).status).toBe(401);
  });

  it("the rate limit holds inside the statement: 429 past the burst, and nothing placed", async () => {
    const { place, heldRows } = await setup();
    const statuses = [];
    for (let h = 0; h < 6; h++) statuses.push((await place(h * 2)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 429, 429]);
    expect(await heldRows()).toBe(4);
    // A refused body past the limit is a 429 too, the door's answer first.
    expect((await place(20, { priority: "high" })).status).toBe(429);
  });

  it("racing requests of one known key take exactly the burst", async () => {
    const { place, heldRows } = await setup();
    expect((await place(0)).status).toBe(201);
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => place(2 + i * 2).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    expect(await heldRows()).toBe(4);
  });

  it("an idempotent place is one statement too: door, stored lookup, change and record together; its replay one", async () => {
    const { place, heldRows } = await setup();
    expect((await place(1)).status).toBe(201);
    const statements = await countStatements();
    try {
      const first = await place(3, {}, "idem-one");
      expect(first.status).toBe(201);
      expect(statements.count()).toBe(1);
      const again = await place(3, {}, "idem-one");
      expect(again.status).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.json.id).toBe(first.json.id);
      expect(statements.count()).toBe(2); // the door found the record; the replay itself reads nothing
      // The same key with another body: 422, found by the one statement, nothing placed.
      expect((await place(5, {}, "idem-one")).status).toBe(422);
      expect(statements.count()).toBe(3);
    } finally {
      statements.restore();
    }
    expect(await heldRows()).toBe(2);
  });

  it("an idempotent calendar create is one statement (the door rides in it), and a key over the limit creates nothing", async () => {
    const { workspace, key, place } = await setup();
    expect((await place(1)).status).toBe(201); // the key is known here from now on
    const calendarsOf = async () => (await (await getDb()).select({ id: calendars.id }).from(calendars).where(eq(calendars.workspaceId, workspace.id))).length;
    const create = (idempotencyKey: string) => api("/api/v1/calendars", { key, body: { name: "one trip" }, headers: { "idempotency-key": idempotencyKey } });
    const statements = await countStatements();
    try {
      const first = await create("cal-one");
      expect(first.status).toBe(201);
      expect(statements.count()).toBe(1);
      expect((await create("cal-one")).json.id).toBe(first.json.id);
      expect(statements.count()).toBe(2);
      // Burst 4: one place and two creates so far (the replay took a token too), so one more, then 429 with nothing created.
      expect((await create("cal-two")).status).toBe(201);
      expect((await create("cal-three")).status).toBe(429);
    } finally {
      statements.restore();
    }
    expect(await calendarsOf()).toBe(3); // the door's calendar, cal-one and cal-two
  });

  it("an idempotent refusal before any change (no such hold) goes through the door on its own, stored and replayed", async () => {
    const { key, place } = await setup();
    expect((await place(1)).status).toBe(201);
    const absent = newId("hold");
    const missing = () => api(`/api/v1/holds/${absent}/release`, { key, method: "POST", headers: { "idempotency-key": "idem-404" } });
    const first = await missing();
    expect(first.status).toBe(404);
    expect(first.headers.get("ratelimit-remaining")).toBe("2");
    const replayed = await missing();
    expect(replayed.status).toBe(404);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.json).toEqual(first.json);
  });

  it("an idempotent request over the rate limit is a 429 that stores nothing", async () => {
    const { place, heldRows } = await setup();
    const statuses = [];
    for (let h = 0; h < 4; h++) statuses.push((await place(h * 2)).status);
    expect(statuses).toEqual([201, 201, 201, 201]);
    const refused = await place(20, {}, "idem-429");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("idempotent-replayed")).toBeNull();
    expect(await heldRows()).toBe(4);
    const rows = await (await getDb()).select().from(idempotencyKeys).where(eq(idempotencyKeys.key, "idem-429"));
    expect(rows).toHaveLength(0);
  });

  it("a revoked key's idempotent place is a 401 that changes and stores nothing", async () => {
    const { workspace, row, place, heldRows } = await setup();
    expect((await place(1)).status).toBe(201);
    await revokeKey(operatorActor(workspace.id), row.id);
    expect((await place(3, {}, "idem-401")).status).toBe(401);
    expect(await heldRows()).toBe(1);
    const rows = await (await getDb()).select().from(idempotencyKeys).where(eq(idempotencyKeys.key, "idem-401"));
    expect(rows).toHaveLength(0);
  });
});
