import type { Transaction } from "../../../db/client";
import type { InboxRow } from "../../../db/schema";
import { inboxesFor, storeForInbox, type Delivery } from "./inbound/ingest-message";
import type { EncodedSource } from "./message-source";
import type { ParsedMessage } from "./inbound/parse-message";
import type { SenderAuth } from "./inbound/sender-auth";
import { lockInbox } from "./threading";
import { mayAttach } from "../../platform/traces/trace-access";

/** Mail from an inbox of this deployment is authenticated by construction: allow lists that require DMARC accept it. */
export const LOCAL_SENDER_AUTH: SenderAuth = { spf: null, dkim: null, dmarc: "pass", checked_by: "agentdraft-local", failed: false };

/** The recipients that are inboxes of this deployment (any workspace), other than the sender's own. */
export async function localRecipients(sender: InboxRow, addresses: string[]): Promise<InboxRow[]> {
  return (await inboxesFor(addresses)).filter((i) => i.id !== sender.id);
}

/** The addresses that must still go out through the provider. */
export const externalAddresses = (addresses: string[], local: InboxRow[]) => {
  const here = new Set(local.map((i) => i.address.toLowerCase()));
  return addresses.filter((a) => !here.has(a.trim().toLowerCase()));
};

/** Locks the sending inbox and the local recipients' in one order (id), so two inboxes mailing each other cannot deadlock. */
export async function lockInboxes(tx: Transaction, ids: string[]): Promise<void> {
  for (const id of [...new Set(ids)].sort()) await lockInbox(tx, id);
}

/**
 * The trace the recipients' copies in the sender's workspace carry: the sender's, when the
 * sending agent may use it (its own, a new one it thereby starts, or one whose graph it is in);
 * otherwise none, and each copy starts a trace of its own. Copies in other workspaces never carry
 * it (deliverLocally). `agentId` is the agent that sent; `trusted` when a workspace-wide key or a
 * person did.
 */
export async function carriedTrace(sender: InboxRow, local: InboxRow[], traceId: string | null, agentId: string | null, trusted: boolean): Promise<string | null> {
  if (!traceId || !local.some((i) => i.workspaceId === sender.workspaceId)) return null;
  return (await mayAttach(sender.workspaceId, agentId, traceId, trusted)) ? traceId : null;
}

/**
 * Delivers a message to inboxes of this deployment inside the sending transaction, through the
 * same ingestion rules as mail from outside (sender rules, duplicates, threads, email.received,
 * audit). A copy in the sender's workspace is on `traceId` (carriedTrace), one in another
 * workspace on a trace of its own: a trace id names a trace of one workspace only. The caller
 * holds the inboxes' locks (lockInboxes).
 */
export async function deliverLocally(sender: InboxRow, local: InboxRow[], parsed: ParsedMessage, raw: EncodedSource, traceId: string | null): Promise<Delivery[]> {
  const out: Delivery[] = [];
  for (const inbox of local) out.push(await storeForInbox(inbox, parsed, raw, "local", inbox.workspaceId === sender.workspaceId ? (traceId ?? undefined) : undefined));
  return out;
}
