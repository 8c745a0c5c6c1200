import { z } from "zod";

export const agentName = z
  .string()
  .trim()
  .min(1, "name is required")
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, "use letters, digits, spaces, dots, dashes and underscores");

export const createAgentInput = z.object({
  name: agentName,
  description: z.string().trim().max(500).nullish(),
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
