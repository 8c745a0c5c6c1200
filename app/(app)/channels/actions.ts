"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runMemberAction, type ActionState } from "@/lib/domains/auth/member-action";
import { createChannel, deleteChannel, setChannelEnabled, setEscalationChannels, updateChannel } from "@/lib/domains/notifications/channels";
import { createChannelInput, updateChannelInput } from "@/lib/domains/notifications/schemas";
import { sendTestMessage } from "@/lib/domains/notifications/test-channel";

const channelId = z.object({ channel_id: z.string().min(1) });
const KIND_NAMES = { slack: "Slack", teams: "Microsoft Teams", discord: "Discord" } as const;

export async function createChannelAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage notification channels", createChannelInput, form, async ({ member }, input) => {
    const channel = await createChannel(member, input);
    revalidatePath("/channels");
    return { ok: true, message: `${KIND_NAMES[channel.kind]} channel “${channel.name}” connected. Send a test message to check it.` };
  });
}

export async function updateChannelAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage notification channels", updateChannelInput, form, async ({ member }, input) => {
    const channel = await updateChannel(member, input);
    revalidatePath("/channels");
    return { ok: true, message: `Saved “${channel.name}”.` };
  });
}

export async function testChannelAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage notification channels", channelId, form, async ({ member }, input) => {
    const result = await sendTestMessage(member, input.channel_id);
    revalidatePath("/channels");
    return result.ok ? { ok: true, message: "Test message sent." } : { ok: false, error: `The test message failed: ${result.error}` };
  });
}

export async function toggleChannelAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const schema = channelId.extend({ enabled: z.enum(["true", "false"]) });
  return runMemberAction("admin", "manage notification channels", schema, form, async ({ member }, input) => {
    const channel = await setChannelEnabled(member, input.channel_id, input.enabled === "true");
    revalidatePath("/channels");
    return { ok: true, message: channel.enabled ? `“${channel.name}” is enabled; its held messages are on their way.` : `“${channel.name}” is disabled; its messages wait until it is enabled.` };
  });
}

export async function deleteChannelAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "manage notification channels", channelId, form, async ({ member }, input) => {
    await deleteChannel(member, input.channel_id);
    revalidatePath("/channels");
    return { ok: true, message: "Channel deleted with its secret and messages." };
  });
}

const escalationChannels = z.object({ channel_ids: z.preprocess((v) => (v === undefined || v === "" ? [] : Array.isArray(v) ? v : [v]), z.array(z.string().min(1)).max(200)) });

export async function setEscalationChannelsAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return runMemberAction("admin", "change approval escalation", escalationChannels, form, async ({ member }, input) => {
    const changed = await setEscalationChannels(member, input.channel_ids);
    revalidatePath("/approvals/policies");
    revalidatePath("/channels");
    return { ok: true, message: changed ? "Saved: escalations go to the channels ticked." : "Nothing changed." };
  });
}
