import { describe, expect, it, vi } from "vitest";

// Who may see health details; the session lookup itself is next-auth's (e2e signs in for real).
const signedIn = vi.hoisted(() => ({ member: null as null | { member: { id: string }; workspace: { id: string } } }));
vi.mock("../../domains/auth/current-member", () => ({ currentMember: async () => signedIn.member }));
const { healthViewer } = await import("./health-viewer");

describe("health details", () => {
  it("are for a signed-in member, not for a visitor with a cookie but no session, nor without one", async () => {
    const withCookie = new Request("http://localhost/api/health", { headers: { cookie: "authjs.session-token=abc" } });
    expect(await healthViewer(new Request("http://localhost/api/health"))).toBeNull();
    expect(await healthViewer(withCookie)).toBeNull();
    signedIn.member = { member: { id: "mem_1" }, workspace: { id: "ws_1" } };
    expect(await healthViewer(withCookie)).toEqual({ workspaceId: "ws_1" });
    expect(await healthViewer(new Request("http://localhost/api/health"))).toBeNull(); // no cookie: not even asked
  });

  it("refuse a malformed key with 401 rather than answering as to a visitor", async () => {
    await expect(healthViewer(new Request("http://localhost/api/health", { headers: { authorization: "Bearer nope" } }))).rejects.toMatchObject({ code: "unauthorized" });
  });
});
