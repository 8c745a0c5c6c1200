// Web-app forms go through the API's input guard: the same lib functions the server actions
// call, with the FormData a browser (or anyone posting to the action) sends.
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "../../../db/client";
import { agents, calendars, members, users, workspaces } from "../../../db/schema";
import { newId } from "../../platform/ids";
import { newWorkspace } from "../../../test/helpers/fixtures";
import { memberActor } from "../members/memberships";
import { createAgent } from "../agents/create-agent";
import { createAgentInput } from "../agents/schemas";
import { createCalendar } from "../calendars/calendars";
import { createCalendarInput } from "../calendars/schemas";
import { renameWorkspace, renameWorkspaceInput } from "../workspaces/rename-workspace";
import { actionError, formFields, runForMember, type ActionState } from "./form-action";
import type { SignedInMember } from "./current-member";

async function signedInOwner(): Promise<SignedInMember> {
  const { workspace } = await newWorkspace();
  const db = await getDb();
  const email = `owner-${newId("user")}@team.test`;
  const [user] = await db.insert(users).values({ id: newId("user"), email, name: "Owner" }).returning();
  const [member] = await db.insert(members).values({ id: newId("member"), workspaceId: workspace.id, email, name: "Owner", role: "owner", userId: user!.id }).returning();
  return { user: { id: user!.id, email, name: "Owner" }, member: member!, workspace };
}

const form = (fields: Record<string, string | string[]>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) f.append(k, one);
  return f;
};

/** As the server action does: the guard, the role, the schema, the lib function; failures as the form shows them. */
const submit = <S extends z.ZodType>(m: SignedInMember, schema: S, input: unknown, fn: (m: SignedInMember, data: z.output<S>) => Promise<ActionState>) =>
  runForMember(m, "admin", "change things", schema, input, fn).catch(actionError);

// A lone surrogate cannot travel in FormData (its values are USVStrings: it arrives as U+FFFD);
// it is refused where an action is called with a plain value, below.
const hostileValues: [string, string][] = [
  ["NUL", "ops\u0000agent"],
  ["a 20,000-character value", "x".repeat(20_000)],
];

describe("web-app forms under the input guard", () => {
  it("refuse NUL, lone surrogates and over-long values with a form error naming the field, changing nothing", async () => {
    const m = await signedInOwner();
    const db = await getDb();
    const forms = [
      { name: "create agent", schema: createAgentInput, field: "name", fn: async ({ member }: SignedInMember, input: z.output<typeof createAgentInput>) => (await createAgent(memberActor(member), input), { ok: true } as const) },
      { name: "create calendar", schema: createCalendarInput, field: "description", fn: async ({ member }: SignedInMember, input: z.output<typeof createCalendarInput>) => (await createCalendar(memberActor(member), input), { ok: true } as const) },
      { name: "rename workspace", schema: renameWorkspaceInput, field: "name", fn: async ({ member }: SignedInMember, input: z.output<typeof renameWorkspaceInput>) => (await renameWorkspace(member, input), { ok: true } as const) },
    ];
    for (const f of forms) {
      for (const [what, value] of hostileValues) {
        const result = await submit(m, f.schema, form({ name: "Ops", [f.field]: value }), f.fn as never);
        expect(result, `${f.name} with ${what}`).toMatchObject({ ok: false, error: expect.stringContaining("invalid"), fieldErrors: { [f.field]: expect.stringMatching(/NUL|at most 10000 characters/) } });
      }
      // Also in a field name, and too many fields.
      expect(await submit(m, f.schema, form({ name: "Ops", "a\u0000b": "x" }), f.fn as never)).toMatchObject({ ok: false, fieldErrors: { form: expect.stringContaining("NUL") } });
      expect(await submit(m, f.schema, form(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}`, "x"]))), f.fn as never)).toMatchObject({ ok: false, fieldErrors: { form: expect.stringContaining("more than 100 fields") } });
    }
    expect(await db.select().from(agents).where(eq(agents.workspaceId, m.workspace.id))).toHaveLength(0);
    expect(await db.select().from(calendars).where(eq(calendars.workspaceId, m.workspace.id))).toHaveLength(0);
    const [ws] = await db.select().from(workspaces).where(eq(workspaces.id, m.workspace.id));
    expect(ws!.name).toBe(m.workspace.name);

    // The same forms, with ordinary values, do their work.
    expect(await submit(m, createAgentInput, form({ name: "Ops agent", description: "books rooms ✓" }), forms[0]!.fn as never)).toEqual({ ok: true });
    expect(await db.select().from(agents).where(eq(agents.workspaceId, m.workspace.id))).toHaveLength(1);
  });

  it("guard values a client sends to an action directly (not FormData): NUL, surrogates, deep nesting", async () => {
    const m = await signedInOwner();
    const fn = async ({ member }: SignedInMember, input: z.output<typeof createAgentInput>) => (await createAgent(memberActor(member), input), { ok: true } as const);
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const input of [{ name: "a\u0000b" }, { name: "a\udc00b" }, { name: "ok", description: deep }]) {
      expect(await submit(m, createAgentInput, input, fn)).toMatchObject({ ok: false, error: expect.stringContaining("invalid") });
    }
    expect(await (await getDb()).select().from(agents).where(eq(agents.workspaceId, m.workspace.id))).toHaveLength(0);
  });

  it("formFields, used by the forms outside runMemberAction (first run, invitations), applies the same guard", () => {
    expect(form({ name: "a\ud800b" }).get("name")).toBe("a\ufffdb");
    expect(formFields(form({ email: "a@b.test", name: "Ada" }))).toEqual({ email: "a@b.test", name: "Ada" });
    expect(() => formFields(form({ email: "a\u0000@b.test" }))).toThrow(expect.objectContaining({ code: "validation_failed", extra: { errors: [{ field: "email", message: expect.stringContaining("NUL") }] } }));
  });
});
