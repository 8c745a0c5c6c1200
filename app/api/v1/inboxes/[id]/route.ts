import { withApiKey } from "@/lib/platform/api/with-api-key";
import { json } from "@/lib/platform/api/responses";
import { getInboxOp, updateInboxOp } from "@/lib/domains/mail/operations";
import { getInbox, updateInbox } from "@/lib/domains/mail/inboxes";
import { serializeInbox } from "@/lib/domains/mail/serialize";
import { deleteInbox, deleteInboxOp, serializeDeletedInbox } from "@/lib/domains/mail/delete-inbox";

// GET /api/v1/inboxes/{id} — retrieve an inbox
export const GET = withApiKey(getInboxOp, async ({ actor, params }) => json(serializeInbox(await getInbox(actor, params.id!))));

// PATCH /api/v1/inboxes/{id} — display name, sender allow/block lists
export const PATCH = withApiKey(updateInboxOp, async ({ actor, params, body }) => json(serializeInbox(await updateInbox(actor, params.id!, body))));

// DELETE /api/v1/inboxes/{id} — delete an inbox and all its mail
export const DELETE = withApiKey(deleteInboxOp, async ({ actor, params }) => json(serializeDeletedInbox(await deleteInbox(actor, params.id!))));
