// A decision is a fresh act of a person: a user-verified passkey assertion over a challenge
// bound to this approval and verdict, single use and short-lived, from the member's own passkey.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { newAgent, newKey, newPersonWithPasskey, newWorkspace } from "../../../test/helpers/fixtures";
import { type SoftwarePasskey } from "../../../test/helpers/software-passkey";
import { setTestEnv } from "../../../test/helpers/env";
import { getDb } from "../../../db/client";
import { approvalDecisions, approvals, auditEntries, decisionChallenges } from "../../../db/schema";
import { createApproval } from "./create-approval";
import { createApprovalInput } from "./schemas";
import { decideWithPasskey, relyingParty, startDecision } from "./decide-with-passkey";

setTestEnv({ AUTH_URL: "https://agentdraft.test" });

/** A member with a signed-in identity and one software passkey. */
const person = (workspaceId: string, role: "approver" | "admin" | "viewer" = "approver") => newPersonWithPasskey(workspaceId, role);

async function setup(required = 1) {
  const { workspace } = await newWorkspace();
  const agent = await newAgent(workspace.id, "payments");
  const { row } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["approvals"] });
  const ask = (summary = "Refund order 8812") =>
    createApproval({ type: "key", workspaceId: workspace.id, keyId: row.id, agentId: agent.id }, createApprovalInput.parse({ summary, evidence: { order: 8812 }, required_approvals: required }));
  return { workspace, ask, alice: await person(workspace.id), bob: await person(workspace.id, "admin") };
}

/** The browser's part: answers the challenge with a passkey. */
const sign = (passkey: SoftwarePasskey, challenge: string, userVerified = true) => passkey.assert({ challenge, origin: relyingParty().origin, userVerified });

async function votes(approvalId: string) {
  const db = await getDb();
  return db.select().from(approvalDecisions).where(eq(approvalDecisions.approvalId, approvalId));
}

describe("deciding needs a fresh passkey assertion", () => {
  it("a user-verified assertion over this decision's challenge records the vote, naming the passkey in the vote and the audit entry", async () => {
    const { workspace, ask, alice } = await setup();
    const approval = await ask();
    const options = await startDecision(alice.actor, approval.id, "approve");
    expect(options).toMatchObject({ userVerification: "required", rpId: "agentdraft.test" });
    expect(options.allowCredentials?.map((c) => Buffer.from(c.id, "base64url").toString("base64"))).toEqual([alice.passkey.credentialId]);

    const decided = await decideWithPasskey(alice.actor, approval.id, "approve", "customer verified", sign(alice.passkey, options.challenge));
    expect(decided.status).toBe("approved");
    expect(await votes(approval.id)).toMatchObject([{ memberId: alice.member.id, decision: "approve", passkeyCredentialId: alice.passkey.credentialId }]);
    const db = await getDb();
    const [entry] = await db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.workspaceId, workspace.id), eq(auditEntries.action, "approval.approved_by_member")));
    expect(entry!.summary).toMatchObject({ passkey_verified: true, passkey_credential_id: alice.passkey.credentialId });
    // Spent: nothing is left to answer.
    expect(await db.select().from(decisionChallenges).where(eq(decisionChallenges.approvalId, approval.id))).toEqual([]);
  });

  it("no assertion, or a malformed one, is refused and records nothing", async () => {
    const { ask, alice } = await setup();
    const approval = await ask();
    await startDecision(alice.actor, approval.id, "approve");
    for (const missing of [undefined, null, "", "not json", { id: "x" }]) {
      await expect(decideWithPasskey(alice.actor, approval.id, "approve", null, missing)).rejects.toMatchObject({ code: "forbidden", message: expect.stringMatching(/passkey/) });
    }
    expect(await votes(approval.id)).toEqual([]);
  });

  it("an assertion is single use: a replay decides nothing", async () => {
    const { ask, alice, bob } = await setup(2);
    const approval = await ask();
    const options = await startDecision(alice.actor, approval.id, "approve");
    const assertion = sign(alice.passkey, options.challenge);
    await decideWithPasskey(alice.actor, approval.id, "approve", null, assertion);
    // The same signed assertion again (as another member would replay it, or the same one twice).
    await expect(decideWithPasskey(bob.actor, approval.id, "approve", null, assertion)).rejects.toMatchObject({ code: "forbidden", message: expect.stringMatching(/already used/) });
    await expect(decideWithPasskey(alice.actor, approval.id, "approve", null, assertion)).rejects.toMatchObject({ code: "forbidden" });
    expect(await votes(approval.id)).toHaveLength(1);
  });

  it("a signature whose r or s is shorter than 32 bytes verifies (DER drops leading zeros: about one real signature in 128)", async () => {
    const { ask, alice } = await setup();
    const approval = await ask();
    const options = await startDecision(alice.actor, approval.id, "approve");
    // ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }: 30 len 02 rlen r… 02 slen s…
    const shortComponent = (a: ReturnType<typeof sign>) => {
      const der = Buffer.from(a.response.signature, "base64url");
      const rLength = der[3]!;
      return rLength < 32 || der[5 + rLength]! < 32;
    };
    let assertion = sign(alice.passkey, options.challenge);
    for (let tries = 0; !shortComponent(assertion) && tries < 20_000; tries++) assertion = sign(alice.passkey, options.challenge);
    expect(shortComponent(assertion)).toBe(true);
    expect((await decideWithPasskey(alice.actor, approval.id, "approve", null, assertion)).status).toBe("approved");
  });

  it("ten racing uses of one assertion record one vote; the others find it spent", async () => {
    const { ask, alice } = await setup(2);
    const approval = await ask();
    const options = await startDecision(alice.actor, approval.id, "approve");
    const assertion = sign(alice.passkey, options.challenge);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => decideWithPasskey(alice.actor, approval.id, "approve", null, assertion)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === "rejected")) expect(r.reason).toMatchObject({ code: "forbidden", message: expect.stringMatching(/already used/) });
    expect(await votes(approval.id)).toHaveLength(1);
  });

  it("an assertion made for another approval, or for the other verdict, is refused", async () => {
    const { ask, alice } = await setup();
    const first = await ask("Refund 1");
    const second = await ask("Refund 2");
    const forFirst = await startDecision(alice.actor, first.id, "approve");
    await expect(decideWithPasskey(alice.actor, second.id, "approve", null, sign(alice.passkey, forFirst.challenge))).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/another decision/),
    });
    const toApprove = await startDecision(alice.actor, first.id, "approve");
    await expect(decideWithPasskey(alice.actor, first.id, "deny", "no", sign(alice.passkey, toApprove.challenge))).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/another decision/),
    });
    expect(await votes(first.id)).toEqual([]);
    expect(await votes(second.id)).toEqual([]);
  });

  it("an expired challenge is refused", async () => {
    const { ask, alice } = await setup();
    const approval = await ask();
    const options = await startDecision(alice.actor, approval.id, "approve");
    const db = await getDb();
    await db.update(decisionChallenges).set({ expiresAt: sql`now() - interval '1 second'` as unknown as Date }).where(eq(decisionChallenges.challenge, options.challenge));
    await expect(decideWithPasskey(alice.actor, approval.id, "approve", null, sign(alice.passkey, options.challenge))).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/expired/),
    });
    expect(await votes(approval.id)).toEqual([]);
  });

  it("another member's passkey, or another member's challenge, does not decide for this one", async () => {
    const { ask, alice, bob } = await setup(2);
    const approval = await ask();
    // Alice's challenge signed with Bob's passkey, presented as Alice: not one of her passkeys.
    const hers = await startDecision(alice.actor, approval.id, "approve");
    await expect(decideWithPasskey(alice.actor, approval.id, "approve", null, sign(bob.passkey, hers.challenge))).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/not one of your passkeys/),
    });
    // Bob answering Alice's challenge (with his own passkey) as himself: the challenge is hers.
    const hersAgain = await startDecision(alice.actor, approval.id, "approve");
    await expect(decideWithPasskey(bob.actor, approval.id, "approve", null, sign(bob.passkey, hersAgain.challenge))).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/someone else/),
    });
    expect(await votes(approval.id)).toEqual([]);
  });

  it("an assertion without user verification (UV flag off) is refused", async () => {
    const { ask, alice } = await setup();
    const approval = await ask();
    const options = await startDecision(alice.actor, approval.id, "approve");
    await expect(decideWithPasskey(alice.actor, approval.id, "approve", null, sign(alice.passkey, options.challenge, false))).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/user verification/),
    });
    expect(await votes(approval.id)).toEqual([]);
  });

  it("a tampered signature, or a challenge from another origin, is refused", async () => {
    const { ask, alice } = await setup();
    const approval = await ask();
    const options = await startDecision(alice.actor, approval.id, "approve");
    const forged = sign(alice.passkey, options.challenge);
    forged.response.signature = sign(alice.passkey, "b3RoZXI").response.signature;
    await expect(decideWithPasskey(alice.actor, approval.id, "approve", null, forged)).rejects.toMatchObject({ code: "forbidden", message: expect.stringMatching(/could not be verified/) });
    const again = await startDecision(alice.actor, approval.id, "approve");
    const phished = alice.passkey.assert({ challenge: again.challenge, origin: "https://agentdraft.test.evil.example" });
    await expect(decideWithPasskey(alice.actor, approval.id, "approve", null, phished)).rejects.toMatchObject({ code: "forbidden" });
    expect(await votes(approval.id)).toEqual([]);
  });

  it("a viewer gets no challenge; a decided approval gets none; an approval of another workspace is not found", async () => {
    const { workspace, ask, alice } = await setup();
    const viewer = await person(workspace.id, "viewer");
    const approval = await ask();
    await expect(startDecision(viewer.actor, approval.id, "approve")).rejects.toMatchObject({ code: "forbidden" });
    const other = await setup();
    await expect(startDecision(other.alice.actor, approval.id, "approve")).rejects.toMatchObject({ code: "not_found" });
    const options = await startDecision(alice.actor, approval.id, "deny");
    await decideWithPasskey(alice.actor, approval.id, "deny", "wrong customer", sign(alice.passkey, options.challenge));
    await expect(startDecision(alice.actor, approval.id, "approve")).rejects.toMatchObject({ code: "conflict" });
    const db = await getDb();
    expect((await db.select({ status: approvals.status }).from(approvals).where(eq(approvals.id, approval.id)))[0]!.status).toBe("denied");
  });

  it("the web app decides only through decideWithPasskey (no page or action records a vote without one)", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name)) files.push(path);
      }
    };
    walk("app");
    const direct = files.filter((f) => /decide-approval["']/.test(readFileSync(f, "utf8")) && /\bdecideApproval\b/.test(readFileSync(f, "utf8")));
    expect(direct).toEqual([]);
    expect(files.some((f) => /decideWithPasskey/.test(readFileSync(f, "utf8")))).toBe(true);
  });
});
