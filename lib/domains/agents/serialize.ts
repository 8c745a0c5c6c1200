import type { AgentRow } from "../../../db/schema";

export const serializeAgent = (a: AgentRow) => ({
  id: a.id,
  object: "agent" as const,
  name: a.name,
  description: a.description,
  max_priority: a.maxPriority,
  created_at: a.createdAt.toISOString(),
});
