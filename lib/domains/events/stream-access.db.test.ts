// @suite pooled
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { getDb } from "../../../db/client";
import { agents, members, sessions, users } from "../../../db/schema";
import { serveApiForTests } from "../../../test/helpers/api-client";
import { newAgent, newKey, newMember, newWorkspace } from "../../../test/helpers/fixtures";
import { setTestEnv } from "../../../test/helpers/env";
import { openStream, sseBlocks, type SseBlock } from "../../../test/helpers/sse";
import { newId } from "../../platform/ids";
import { operatorActor } from "../../platform/actor";
import { revokeKey } from "../api-keys/revoke-key";
import { removeMember } from "../members/remove-member";
import { signOutEverywhere } from "../passkeys/passkeys";
import { problemResponse } from "../../platform/api/problem";
import { transaction } from "../../../db/transaction";
import { emitEvent } from "../../platform/events/emit-event";
import { livePosition, openLiveChannel } from "./live-channel";

// Heartbeats a minute apart: a stream that ended only when its slot is renewed would outlive the test's wait.
setTestEnv({ EVENTS_STREAMS_PER_KEY: "3", EVENTS_STREAM_MAX_SECONDS: "120", EVENTS_HEARTBEAT_SECONDS: "60", EVENTS_POLL_INTERVAL_MS: "200", LIVE_STREAMS_PER_MEMBER: "2" });
const { url } = serveApiForTests();

/** The web app's live channel on loopback, for a given member and session (what /api/live does after it reads the session cookie). */
let live: { origin: string; close: () => Promise<void> };
const whoByToken = new Map<string, { memberId: string; workspaceId: string }>();
beforeAll(async () => {
  const server = http.createServer(async (req, res) => {
    const token = req.headers["x-test-session"] as string;
    const who = whoByToken.get(token)!;
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const request = new Request(`http://127.0.0.1${req.url}`, { headers: req.headers as Record<string, string>, signal: abort.signal });
    try {
      const stream = await openLiveChannel(request, { ...who, sessionToken: token });
      res.writeHead(200, { "content-type": "text/event-stream" });
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    } catch (err) {
      const answer = problemResponse(err, "req_test", {});
      res.writeHead(answer.status, { "content-type": "application/problem+json" }).end(await answer.text());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  live = { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
});
afterAll(() => live?.close());

/** Reads blocks until the server ends the stream (true) or `ms` pass (false). */
async function endsWithin(res: Response, abort: AbortController, ms: number): Promise<{ ended: boolean; blocks: SseBlock[] }> {
  const blocks: SseBlock[] = [];
  const timer = setTimeout(() => abort.abort(), ms);
  try {
    for await (const b of sseBlocks(res.body!)) blocks.push(b);
    return { ended: true, blocks };
  } catch (err) {
    if (abort.signal.aborted) return { ended: false, blocks };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** A signed-in person: a user, a database session, and a membership of the workspace. */
async function signedInMember(workspaceId: string, role: "admin" | "viewer" = "viewer") {
  const db = await getDb();
  const [user] = await db.insert(users).values({ id: newId("user"), email: `${newId("user")}@team.test` }).returning();
  const token = randomBytes(16).toString("hex");
  await db.insert(sessions).values({ sessionToken: token, userId: user!.id, expires: new Date(Date.now() + 86_400_000) });
  const { member } = await newMember(workspaceId, role);
  await db.update(members).set({ userId: user!.id }).where(eq(members.id, member.id));
  whoByToken.set(token, { memberId: member.id, workspaceId });
  return { user: user!, member, token };
}
const openLive = (token: string, signal: AbortSignal, query = "") => fetch(`${live.origin}/api/live${query}`, { headers: { "x-test-session": token, accept: "text/event-stream" }, signal });

describe("GET /v1/events ends within seconds", () => {
  it("of its key's revocation", async () => {
    const { workspace } = await newWorkspace();
    const { key, row } = await newKey(workspace.id);
    const abort = new AbortController();
    const res = await openStream(url(), key, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reading = endsWithin(res, abort, 20_000);
    await revokeKey(operatorActor(workspace.id), row.id);
    const { ended, blocks } = await reading;
    expect(ended).toBe(true);
    expect(blocks.at(-1)!.comments.join(" ")).toMatch(/access ended/);
    expect((await openStream(url(), key)).status).toBe(401);
  });

  it("of its agent's deletion", async () => {
    const { workspace } = await newWorkspace();
    const agent = await newAgent(workspace.id);
    const { key } = await newKey(workspace.id, { agent_id: agent.id });
    const abort = new AbortController();
    const res = await openStream(url(), key, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reading = endsWithin(res, abort, 20_000);
    const db = await getDb();
    await db.delete(agents).where(eq(agents.id, agent.id));
    expect((await reading).ended).toBe(true);
  });
});

describe("the web app's live channel", () => {
  it("is counted per member (429 beyond LIVE_STREAMS_PER_MEMBER, across racing opens); another member has their own", async () => {
    const { workspace } = await newWorkspace();
    const a = await signedInMember(workspace.id);
    const b = await signedInMember(workspace.id);
    const aborts = Array.from({ length: 5 }, () => new AbortController());
    const answers = await Promise.all(aborts.map((x) => openLive(a.token, x.signal)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429]);
    const other = new AbortController();
    expect((await openLive(b.token, other.signal)).status).toBe(200);
    for (const x of [...aborts, other]) x.abort();
    const db = await getDb();
    await expect
      .poll(async () => Number((await db.execute<{ n: number }>(sql`select count(*)::int as n from event_stream_slots where member_id = ${a.member.id}`)).rows[0]!.n), { timeout: 60_000 })
      .toBe(0);
  });

  it("ends within seconds when the member is removed", async () => {
    const { workspace } = await newWorkspace();
    const admin = await signedInMember(workspace.id, "admin");
    const leaving = await signedInMember(workspace.id);
    const abort = new AbortController();
    const res = await openLive(leaving.token, abort.signal);
    expect(res.status).toBe(200);
    const reading = endsWithin(res, abort, 20_000);
    await removeMember(admin.member, { member_id: leaving.member.id });
    expect((await reading).ended).toBe(true);
    // The admin's own channel is untouched.
    const mine = new AbortController();
    expect((await openLive(admin.token, mine.signal)).status).toBe(200);
    mine.abort();
  });

  it("ends within seconds when the person signs out everywhere", async () => {
    const { workspace } = await newWorkspace();
    const person = await signedInMember(workspace.id);
    const abort = new AbortController();
    const res = await openLive(person.token, abort.signal);
    expect(res.status).toBe(200);
    const reading = endsWithin(res, abort, 20_000);
    await signOutEverywhere(person.user.id);
    expect((await reading).ended).toBe(true);
    expect((await openLive(person.token, new AbortController().signal)).status).toBe(401);
  });

  it("starts where the page read its data (?after=): what commits before the page connects is streamed, not lost", async () => {
    const { workspace } = await newWorkspace();
    const person = await signedInMember(workspace.id);
    const from = await livePosition(workspace.id); // the page reads this, then its data, and renders
    await transaction((tx) => emitEvent(tx, operatorActor(workspace.id), { type: "approval.requested", data: { between: "render and connect" } }));
    const abort = new AbortController();
    const res = await openLive(person.token, abort.signal, `?types=approval.requested&after=${from}`);
    expect(res.status).toBe(200);
    try {
      for await (const b of sseBlocks(res.body!)) {
        if (b.event === undefined) continue;
        expect(b.event).toBe("approval.requested");
        expect(JSON.parse(b.data!).data).toEqual({ between: "render and connect" });
        break;
      }
    } finally {
      abort.abort();
    }
  });
});
