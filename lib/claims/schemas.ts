import { z } from "zod";
import { MESSAGE_CLAIM_STATUSES } from "../../db/schema";

export const CLAIM_TTL_MAX_SECONDS = 86_400;

export const claimMessageInput = z.object({
  ttl_seconds: z.number().int().min(1).max(CLAIM_TTL_MAX_SECONDS).describe("how long the claim lasts unless completed or released, 1 s to 24 h; claiming again renews it"),
});

export const claimSchema = z
  .object({
    id: z.string().describe("mclm_..."),
    object: z.literal("message_claim"),
    message_id: z.string(),
    inbox_id: z.string(),
    agent_id: z.string().nullable(),
    status: z.enum(MESSAGE_CLAIM_STATUSES).describe("`expired` as soon as expires_at passes: the message can be claimed again"),
    ttl_seconds: z.number().int(),
    expires_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
    ended_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "MessageClaim" });
