import { z } from "zod";
import { API_KEY_SCOPES } from "../../../db/schema";

export const apiKeyScope = z.enum(API_KEY_SCOPES);

export const createKeyInput = z.object({
  name: z.string().trim().min(1).max(100).nullish(),
  agent_id: z.string().trim().min(1).nullish(),
  /** Omitted or null: every scope. */
  scopes: z.array(apiKeyScope).min(1, "give at least one scope, or omit scopes for all").nullish(),
  mode: z.enum(["live", "test"]).default("live"),
});
export type CreateKeyInput = z.input<typeof createKeyInput>;
