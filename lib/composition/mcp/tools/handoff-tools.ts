import { createHandoff } from "../../../domains/handoffs/create-handoff";
import { claimNextHandoff } from "../../../domains/handoffs/claim-next";
import { finishHandoff } from "../../../domains/handoffs/work-handoff";
import { getHandoff, listHandoffs } from "../../../domains/handoffs/read-handoffs";
import { claimHandoffInput, completeHandoffInput, createHandoffInput, failHandoffInput, listHandoffsQuery } from "../../../domains/handoffs/schemas";
import { serializeHandoff, serializeHandoffWithBody } from "../../../domains/handoffs/serialize";
import { READ_ONLY, defineTool, idArg, idempotencyKeyArg } from "../define-tool";

const scope = "handoffs" as const;
const write = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export const handoffTool = defineTool({
  name: "handoff",
  title: "Hand work to another agent",
  description:
    "Give another agent a typed piece of work (type, body JSON). parent_id makes it a sub-task of a handoff you received; the correlation id and trace " +
    "follow the parent. Send idempotency_key (such as your own task id) so a retry never hands the work over twice. The recipient claims it with next_handoff.",
  scope,
  input: { ...createHandoffInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: write,
  write: (body) => ({ path: "/v1/handoffs", body, status: 201 }),
  run: async ({ actor }, args) => serializeHandoff(await createHandoff(actor, createHandoffInput.parse(args))),
});

export const nextHandoffTool = defineTool({
  name: "next_handoff",
  title: "Take the next handoff",
  description:
    "Claim the oldest pending handoff sent to your agent (of a type, if given) for ttl_seconds. Returns it with its body and claim_id, or {handoff: null} " +
    "when nothing waits. Finish with complete_handoff or fail_handoff before the claim lapses, or another worker retakes it.",
  scope,
  input: { type: createHandoffInput.shape.type.optional(), agent_id: idArg("workspace-wide keys: the recipient agent").optional(), ...claimHandoffInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: write,
  // No REST twin: the key makes a retried call return the same claim instead of taking a second handoff.
  write: (body) => ({ path: "/v1/handoffs/next", body }),
  run: async ({ actor }, { type, agent_id, ...rest }) => {
    const c = claimHandoffInput.parse(rest);
    const got = await claimNextHandoff(actor, { agentId: agent_id, type, ttlSeconds: c.ttl_seconds, worker: c.worker });
    return got ? { handoff: { ...serializeHandoffWithBody(got.handoff, got.body), claim_id: got.handoff.claimId } } : { handoff: null };
  },
});

export const completeHandoffTool = defineTool({
  name: "complete_handoff",
  title: "Complete a handoff",
  description: "Report the result of a handoff you claimed; it goes back to the sender (handoff.completed). Fails with handoff_claim_lost if your claim lapsed.",
  scope,
  input: { handoff_id: idArg("hof_..."), ...completeHandoffInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: { ...write, idempotentHint: true },
  write: ({ handoff_id, ...body }) => ({ path: `/v1/handoffs/${handoff_id}/complete`, body }),
  run: async ({ actor, key }, { handoff_id, ...rest }) => {
    const c = completeHandoffInput.parse(rest);
    await finishHandoff(actor, handoff_id, c.claim_id, { action: "complete", result: c.result });
    const { handoff, body } = await getHandoff(key, handoff_id);
    return serializeHandoffWithBody(handoff, body);
  },
});

export const failHandoffTool = defineTool({
  name: "fail_handoff",
  title: "Fail a handoff",
  description: "Report that a handoff you claimed failed. retry: true (default) lets another attempt run while max_attempts allows; false makes it dead now.",
  scope,
  input: { handoff_id: idArg("hof_..."), ...failHandoffInput.shape, idempotency_key: idempotencyKeyArg },
  annotations: write,
  write: ({ handoff_id, ...body }) => ({ path: `/v1/handoffs/${handoff_id}/fail`, body }),
  run: async ({ actor }, { handoff_id, ...rest }) => {
    const f = failHandoffInput.parse(rest);
    return serializeHandoff(await finishHandoff(actor, handoff_id, f.claim_id, { action: "fail", error: f.error, details: f.details, retry: f.retry }));
  },
});

export const getHandoffTool = defineTool({
  name: "get_handoff",
  title: "Get a handoff",
  description: "A handoff you sent or received, with its body, status and (once completed) result.",
  scope,
  input: { handoff_id: idArg("hof_...") },
  annotations: READ_ONLY,
  run: async ({ key }, { handoff_id }) => {
    const { handoff, body } = await getHandoff(key, handoff_id);
    return serializeHandoffWithBody(handoff, body);
  },
});

export const listHandoffsTool = defineTool({
  name: "list_handoffs",
  title: "List handoffs",
  description: "Envelopes of the handoffs you sent or received, newest first; filter by status (pending, claimed, completed, dead, expired), type, role (received, sent).",
  scope,
  input: listHandoffsQuery.shape,
  annotations: READ_ONLY,
  run: async ({ key }, args) => {
    const { items, hasMore } = await listHandoffs(key, listHandoffsQuery.parse(args));
    return { object: "list", data: items.map(serializeHandoff), has_more: hasMore };
  },
});

export const HANDOFF_TOOLS = [handoffTool, nextHandoffTool, completeHandoffTool, failHandoffTool, getHandoffTool, listHandoffsTool];
