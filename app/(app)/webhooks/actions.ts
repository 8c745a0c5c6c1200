"use server";

import { z } from "zod";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { memberActor } from "@/lib/domains/members/memberships";
import { EVENT_TYPES } from "@/lib/platform/events/emit-event";
import { createEndpoint } from "@/lib/domains/webhooks/create-endpoint";
import { updateEndpoint } from "@/lib/domains/webhooks/update-endpoint";
import { deleteEndpoint } from "@/lib/domains/webhooks/delete-endpoint";
import { rotateSecret } from "@/lib/domains/webhooks/rotate-secret";
import { retryDelivery } from "@/lib/domains/webhooks/retry-delivery";
import { retryFailedDeliveries } from "@/lib/domains/webhooks/retry-failed";
import { sendTestEvent } from "@/lib/domains/webhooks/send-test-event";

const list = <T extends z.ZodType>(item: T) => z.preprocess((v) => (v === undefined ? null : Array.isArray(v) ? v : [v]), z.array(item).max(100).nullable());
const blankToNull = (v: unknown) => (typeof v === "string" && v.trim() === "" ? null : v);
const endpointId = z.object({ endpoint_id: z.string().min(1).max(100) });

// The HTML form: checked event types and agents (none checked: all), empty description absent.
const createForm = z.object({
  url: z.string().trim().min(1).max(2048),
  description: z.preprocess(blankToNull, z.string().trim().max(500).nullish()),
  event_types: list(z.enum(EVENT_TYPES)),
  agent_ids: list(z.string().min(1).max(100)),
});

export type EndpointSecret = { id: string; secret: string };

export async function createEndpointAction(_prev: ActionState<EndpointSecret>, form: FormData): Promise<ActionState<EndpointSecret>> {
  return runMemberAction("admin", "create webhook endpoints", createForm, form, async ({ member }, input) => {
    const row = await createEndpoint(memberActor(member), input);
    revalidatePath("/webhooks");
    return { ok: true, message: `Endpoint ${row.url} created.`, data: { id: row.id, secret: row.secret } };
  });
}

export async function rotateSecretAction(_prev: ActionState<EndpointSecret>, form: FormData): Promise<ActionState<EndpointSecret>> {
  return runMemberAction("admin", "rotate webhook secrets", endpointId, form, async ({ member }, { endpoint_id }) => {
    const row = await rotateSecret(memberActor(member), endpoint_id);
    revalidatePath(`/webhooks/${row.id}`);
    return { ok: true, message: "Secret rotated. The previous one keeps signing for 24 hours.", data: { id: row.id, secret: row.secret } };
  });
}

export async function setEndpointEnabledAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const schema = endpointId.extend({ enabled: z.enum(["true", "false"]).transform((v) => v === "true") });
  return runMemberAction("admin", "enable or disable webhook endpoints", schema, form, async ({ member }, { endpoint_id, enabled }) => {
    await updateEndpoint(memberActor(member), endpoint_id, { enabled });
    revalidatePath(`/webhooks/${endpoint_id}`);
    revalidatePath("/webhooks");
    return { ok: true, message: enabled ? "Endpoint enabled: new events are delivered again." : "Endpoint disabled: it gets no new deliveries." };
  });
}

export async function updateFiltersAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const schema = endpointId.extend({ event_types: list(z.enum(EVENT_TYPES)), agent_ids: list(z.string().min(1).max(100)), description: createForm.shape.description });
  return runMemberAction("admin", "change webhook endpoints", schema, form, async ({ member }, { endpoint_id, ...input }) => {
    await updateEndpoint(memberActor(member), endpoint_id, input);
    revalidatePath(`/webhooks/${endpoint_id}`);
    return { ok: true, message: "Filters saved." };
  });
}

export async function retryDeliveryAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "retry webhook deliveries", z.object({ delivery_id: z.string().min(1).max(100) }), form, async ({ member }, { delivery_id }) => {
    const row = await retryDelivery(memberActor(member), delivery_id);
    revalidatePath(`/webhooks/${row.endpointId}`);
    return { ok: true, message: `Delivery ${row.id} will be attempted again now.` };
  });
}

export async function retryFailedAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "retry webhook deliveries", endpointId, form, async ({ member }, { endpoint_id }) => {
    const { retried } = await retryFailedDeliveries(memberActor(member), endpoint_id);
    revalidatePath(`/webhooks/${endpoint_id}`);
    return { ok: true, message: retried ? `${retried} failed deliver${retried === 1 ? "y" : "ies"} will be attempted again now.` : "No failed deliveries to retry." };
  });
}

export async function sendTestEventAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "send test events", endpointId, form, async ({ member }, { endpoint_id }) => {
    const { deliveryId } = await sendTestEvent(memberActor(member), endpoint_id);
    revalidatePath(`/webhooks/${endpoint_id}`);
    return { ok: true, message: `Test event sent (delivery ${deliveryId}); its result appears in the log below.` };
  });
}

export async function deleteEndpointAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "delete webhook endpoints", endpointId, form, async ({ member }, { endpoint_id }) => {
    await deleteEndpoint(memberActor(member), endpoint_id);
    revalidatePath("/webhooks");
    redirect("/webhooks");
  });
}
