import { z } from "zod";
import { EVENT_TYPES } from "../../platform/events/emit-event";
import { paginationQuery } from "../../platform/api/pagination";
import { DELIVERY_STATUSES } from "../../../db/schema/webhook-deliveries";
import { idField } from "../../platform/api/id-field";

const endpointUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => URL.canParse(v), "must be an absolute URL")
  .refine((v) => !URL.canParse(v) || ["https:", "http:"].includes(new URL(v).protocol), "must be an https URL")
  .refine((v) => !URL.canParse(v) || (!new URL(v).username && !new URL(v).password), "must not contain credentials")
  .describe("https URL; plain http only for hosts on the operator's WEBHOOK_ALLOWED_HOSTS");

const eventTypes = z
  .array(z.enum(EVENT_TYPES))
  .max(EVENT_TYPES.length)
  .describe("event types to deliver; omitted, null or empty: all");
const agentIds = z.array(idField("agent")).max(100).describe("agents whose events to deliver; omitted, null or empty: all");

export const createEndpointInput = z.object({
  url: endpointUrl,
  description: z.string().trim().max(500).nullish(),
  event_types: eventTypes.nullish(),
  agent_ids: agentIds.nullish(),
  enabled: z.boolean().default(true).describe("false: created disabled (nothing is delivered to it) until a PATCH sets it true"),
});
export type CreateEndpointInput = z.input<typeof createEndpointInput>;

export const updateEndpointInput = z
  .object({
    url: endpointUrl.optional(),
    description: z.string().trim().max(500).nullish(),
    event_types: eventTypes.nullish(),
    agent_ids: agentIds.nullish(),
    enabled: z.boolean().optional().describe("true re-enables an endpoint that was disabled, and resets its failure count"),
  })
  .refine((v) => Object.keys(v).length > 0, { message: "give at least one field to change", path: [] });
export type UpdateEndpointInput = z.input<typeof updateEndpointInput>;

export const endpointSchema = z
  .object({
    id: z.string().describe("whe_..."),
    object: z.literal("webhook_endpoint"),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()).nullable().describe("null: all event types"),
    agent_ids: z.array(z.string()).nullable().describe("null: all agents"),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable(),
    disabled_at: z.iso.datetime().nullable(),
    previous_secret_expires_at: z.iso.datetime().nullable().describe("while set and in the future, deliveries carry a signature with the previous secret too"),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "WebhookEndpoint" });

export const endpointWithSecretSchema = endpointSchema
  .extend({ secret: z.string().describe("whsec_...: shown only at creation and rotation") })
  .meta({ id: "WebhookEndpointWithSecret" });

export const deletedSchema = z.object({ id: z.string(), object: z.literal("webhook_endpoint"), deleted: z.literal(true) });

export const deliverySchema = z
  .object({
    id: z.string().describe("whd_..."),
    object: z.literal("webhook_delivery"),
    endpoint_id: z.string(),
    event_id: z.string().describe("whm_...: also the webhook-id header, the same on every attempt"),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    next_attempt_at: z.iso.datetime().nullable(),
    last_attempt_at: z.iso.datetime().nullable(),
    response_status: z.number().int().nullable(),
    latency_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "WebhookDelivery" });

export const listDeliveriesQuery = paginationQuery.extend({ status: z.enum(DELIVERY_STATUSES).optional() });
