import { eq } from "drizzle-orm";
import { z } from "zod";
import { transaction } from "../../../db/transaction";
import { workspaces, type WorkspaceRow } from "../../../db/schema";
import { notFound } from "../../platform/errors";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .transform((d) => d.replace(/^@/, ""))
  .pipe(z.string().regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "a domain such as example.com"));

export const taintSettingsInput = z.object({
  taint_window_seconds: z.coerce.number().int().min(60).max(2592000).describe("how long an agent that read untrusted mail stays tainted after its last read"),
  trusted_domains: z.array(domain).max(100).describe("recipient domains mail to which is never mail to an untrusted recipient"),
});

/**
 * Sets the workspace's taint policy (SPEC §13): the taint window, and the domains people trust as
 * recipients. People only (the web app, the CLI): no API key can widen what its agent may do.
 */
export async function setTaintSettings(actor: Actor & { type: "member" | "operator" }, given: z.input<typeof taintSettingsInput>): Promise<WorkspaceRow> {
  const input = taintSettingsInput.parse(given);
  const trusted = [...new Set(input.trusted_domains)].sort();
  return transaction(async (tx) => {
    const [before] = await tx.select().from(workspaces).where(eq(workspaces.id, actor.workspaceId)).for("update");
    if (!before) throw notFound("workspace", actor.workspaceId);
    const [row] = await tx.update(workspaces).set({ taintWindowSeconds: input.taint_window_seconds, trustedDomains: trusted }).where(eq(workspaces.id, actor.workspaceId)).returning();
    await appendAudit(tx, [
      {
        actor,
        action: "workspace.taint_settings_changed",
        resource: { type: "workspace", id: actor.workspaceId },
        summary: { from: { taint_window_seconds: before.taintWindowSeconds, trusted_domains: before.trustedDomains }, to: { taint_window_seconds: input.taint_window_seconds, trusted_domains: trusted } },
      },
    ]);
    return row!;
  });
}
