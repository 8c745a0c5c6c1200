import { withApiKey } from "@/lib/api/with-api-key";
import { json } from "@/lib/api/responses";
import { getInboxOp, updateInboxOp } from "@/lib/mail/operations";
import { getInbox, updateInbox } from "@/lib/mail/inboxes";
import { serializeInbox } from "@/lib/mail/serialize";
import { deleteInbox, deleteInboxOp, serializeDeletedInbox } from "@/lib/mail/delete-inbox";

// GET /api/v1/inboxes/{id} — retrieve an inbox
export const GET = withApiKey(getInboxOp, async ({ actor, params }) => json(serializeInbox(await getInbox(actor, params.id!))));

// PATCH /api/v1/inboxes/{id} — display name, sender allow/block lists
export const PATCH = withApiKey(updateInboxOp, async ({ actor, params, body }) => json(serializeInbox(await updateInbox(actor, params.id!, body))));

// DELETE /api/v1/inboxes/{id} — delete an inbox and all its mail
export const DELETE = withApiKey(deleteInboxOp, async ({ actor, params }) => json(serializeDeletedInbox(await deleteInbox(actor, params.id!))));
