import { z } from "zod";
import { MESSAGE_CLAIM_STATUSES } from "../../../db/schema";
import { idField } from "../../platform/api/id-field";

export const CLAIM_TTL_MAX_SECONDS = 86_400;

const claimId = idField("messageClaim");

export const claimMessageInput = z.object({
  ttl_seconds: z.number().int().min(1).max(CLAIM_TTL_MAX_SECONDS).describe("how long the claim lasts unless completed or released, 1 s to 24 h"),
  claim_id: claimId.optional().describe("to renew: the id of your live claim (from the claim). Without it, a live claim, even one made with this key, is another worker's: 409 message_claimed"),
  worker: z.string().min(1).max(100).optional().describe("a name for this worker, shown in the claim"),
});

export const endClaimInput = z.object({
  claim_id: claimId.optional().describe("the id of your claim (from the claim): only that claim is ended. Required: without it, 409 claim_id_required"),
});

export const claimSchema = z
  .object({
    id: z.string().describe("mclm_..."),
    object: z.literal("message_claim"),
    message_id: z.string(),
    inbox_id: z.string(),
    agent_id: z.string().nullable(),
    worker: z.string().nullable().describe("the name the worker gave when it claimed"),
    status: z.enum(MESSAGE_CLAIM_STATUSES).describe("`expired` as soon as expires_at passes: the message can be claimed again"),
    ttl_seconds: z.number().int(),
    expires_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
    ended_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "MessageClaim" });
