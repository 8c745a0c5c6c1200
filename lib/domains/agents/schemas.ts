import { z } from "zod";

export const agentName = z
  .string()
  .trim()
  .min(1, "name is required")
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, "use letters, digits, spaces, dots, dashes and underscores");

/** An agent's priority ceiling (SPEC §12): its keys asking for a higher priority on a hold or a lease get 403 priority_above_ceiling. */
export const maxPriority = z.number().int().min(0).max(100).describe("the agent's priority ceiling (SPEC §12), 0-100, default 100: its keys asking for more get 403 priority_above_ceiling");

export const createAgentInput = z.object({
  name: agentName,
  description: z.string().trim().max(500).nullish(),
  max_priority: maxPriority.optional(),
});
export type CreateAgentInput = z.input<typeof createAgentInput>;

export const agentSchema = z
  .object({
    id: z.string().describe("agent_..."),
    object: z.literal("agent"),
    name: z.string(),
    description: z.string().nullable(),
    max_priority: z.number().int().describe("priority ceiling: this agent's keys may not ask for a higher priority (holds, leases)"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Agent" });
