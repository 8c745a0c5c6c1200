import { eq } from "drizzle-orm";
import { z } from "zod";
import { queryable, transaction } from "../../../db/transaction";
import { workspaces, type MemberRow } from "../../../db/schema";
import { appendAudit } from "../../platform/audit/append-audit";
import { notFound } from "../../platform/errors";
import { assertRole, memberActor } from "../members";
import { lockOwnerSwitch } from "./roles";

export const ownerGroupSwitchInput = z.object({ enabled: z.boolean() });

/** Whether SCIM's agentdraft-owner group grants the owner role in this workspace (roles.ts). */
export async function scimOwnerGroupEnabled(workspaceId: string): Promise<boolean> {
  const q = await queryable();
  const [row] = await q.select({ on: workspaces.scimOwnerGroup }).from(workspaces).where(eq(workspaces.id, workspaceId));
  if (!row) throw notFound("workspace", workspaceId);
  return row.on;
}

/**
 * Turns "Let SCIM grant the owner role" on or off: `by` is the signed-in member (never a form's
 * word), and only an owner may. Audited with who and when. Nobody's role changes here: off only
 * stops SCIM from changing owners; on lets the next change of groups do so.
 */
export async function setScimOwnerGroup(by: MemberRow, input: z.input<typeof ownerGroupSwitchInput>): Promise<boolean> {
  const { enabled } = ownerGroupSwitchInput.parse(input);
  assertRole(by.role, "owner", "let SCIM grant the owner role");
  return transaction(async (tx) => {
    const was = await lockOwnerSwitch(tx, by.workspaceId); // waits for SCIM changes under way in this workspace
    if (was === enabled) return enabled;
    await tx.update(workspaces).set({ scimOwnerGroup: enabled }).where(eq(workspaces.id, by.workspaceId));
    await appendAudit(tx, [
      { actor: memberActor(by), action: enabled ? "scim.owner_group_enabled" : "scim.owner_group_disabled", resource: { type: "workspace", id: by.workspaceId }, summary: { scim_owner_group: { from: was, to: enabled } } },
    ]);
    return enabled;
  });
}
