import { and, count, desc, eq, lt, lte, sql, type SQL } from "drizzle-orm";
import type { Resend } from "resend";
import type { Transaction } from "../../../db/client";
import { queryable, transaction } from "../../../db/transaction";
import { inboxes, mailDomains, type InboxRow, type MailDomainRow } from "../../../db/schema";
import { isUniqueViolation } from "../../../db/errors";
import { AppError, notFound } from "../../platform/errors";
import { env } from "../../platform/config/env";
import { newId } from "../../platform/ids";
import type { Actor } from "../../platform/actor";
import { appendAudit } from "../../platform/audit/append-audit";
import { emitEvent } from "../../platform/events/emit-event";
import { scheduleWork } from "../../platform/jobs/schedule";
import { page, type Pagination } from "../../platform/api/pagination";
import { domainNameProblem, normaliseDomainName } from "./domain-name";
import { domainProvider, fetchDomain, findRegistered, ProviderError, registerDomain, removeDomain, requestVerification, statusOf, type ProviderDomain } from "./resend-domains";

/** The work kind that re-checks one pending domain at Resend (lib/composition/job-kinds.ts). */
export const DOMAIN_CHECK_KIND = "mail.domain-check";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** After the n-th check of a round finds the domain still pending, the next waits DOMAIN_CHECK_DELAYS_MS[n] (the last one repeats). */
export const DOMAIN_CHECK_DELAYS_MS = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR];
/** A round of checks ends here: still pending 72 h after it began (as Resend gives up), the domain is `failed`. */
export const DOMAIN_CHECK_WINDOW_MS = 72 * HOUR;
/** A claimed check is not picked again for this long, unless it finishes first. */
const CHECK_LEASE_MS = 2 * MINUTE;

/** The delay before the next check once `attempts` checks of the round are done. */
export const nextCheckDelay = (attempts: number) => DOMAIN_CHECK_DELAYS_MS[Math.min(attempts, DOMAIN_CHECK_DELAYS_MS.length - 1)]!;

const workItem = (d: Pick<MailDomainRow, "id" | "workspaceId">, dueAt: Date) => ({ id: d.id, workspaceId: d.workspaceId, dueAt });

/** Pending domains with a check due, for the work registry. */
export const pendingDomainsSource = () =>
  sql`select id, workspace_id, null::text as key, next_check_at as due_at from mail_domains where status = 'pending' and next_check_at is not null`;

function refuseAgentBound(actor: Actor, what: string): void {
  if (actor.type === "key" && actor.agentId) throw new AppError("forbidden", `An agent-bound API key cannot ${what}. Use a workspace-wide key, or an admin in the web app.`);
}

/** A domain of the actor's workspace (another workspace's is not found). */
export async function getDomain(actor: Actor, id: string): Promise<MailDomainRow> {
  const q = await queryable();
  const [row] = await q.select().from(mailDomains).where(and(eq(mailDomains.id, id), eq(mailDomains.workspaceId, actor.workspaceId)));
  if (!row) throw notFound("domain", id);
  return row;
}

export async function listDomains(actor: Actor, p: Pagination) {
  const q = await queryable();
  const where: (SQL | undefined)[] = [eq(mailDomains.workspaceId, actor.workspaceId)];
  if (p.starting_after) where.push(lt(mailDomains.id, p.starting_after));
  const rows = await q.select().from(mailDomains).where(and(...where)).orderBy(desc(mailDomains.id)).limit(p.limit + 1);
  return page(rows, p.limit);
}

/** How many inboxes have their address on each of these domains. */
export async function inboxCounts(ids: string[]): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const q = await queryable();
  const rows = await q.select({ id: inboxes.domainId, n: count() }).from(inboxes).where(sql`${inboxes.domainId} in ${ids}`).groupBy(inboxes.domainId);
  return new Map(rows.map((r) => [r.id!, Number(r.n)]));
}

/**
 * Adds a domain to the workspace. The claim is the row (a unique index on lower(name)): of any
 * number of workspaces racing for one name exactly one gets it, and only that one goes on to
 * register it with Resend, outside the transaction. With Resend (RESEND_API_KEY) the domain is
 * `pending` with the DNS records Resend lists and a re-check scheduled (1 min, 5 min, 30 min, 2 h
 * … for 72 h); without it, `capture_only`: nothing is verified and mail on it is only captured.
 * Resend refusing the name undoes the claim (400); Resend unreachable leaves it pending with
 * `last_error`, and the scheduled check registers it.
 */
export async function createDomain(actor: Actor, input: { name: string }): Promise<MailDomainRow> {
  refuseAgentBound(actor, "add domains");
  const name = normaliseDomainName(input.name);
  const problem = domainNameProblem(name, env().AGENTDRAFT_MAIL_DOMAIN);
  if (problem) throw new AppError("validation_failed", `${JSON.stringify(name.slice(0, 80))} cannot be a mail domain: ${problem}.`, { errors: [{ field: "name", message: problem }] });
  const provider = domainProvider();
  const now = new Date();
  let row: MailDomainRow;
  try {
    row = await transaction(async (tx) => {
      const [inserted] = await tx
        .insert(mailDomains)
        .values({ id: newId("mailDomain"), workspaceId: actor.workspaceId, name, status: provider ? "pending" : "capture_only", nextCheckAt: provider ? new Date(now.getTime() + nextCheckDelay(0)) : null, checksStartedAt: now })
        .returning();
      await appendAudit(tx, [{ actor, action: "domain.created", resource: { type: "domain", id: inserted!.id }, summary: { name, status: inserted!.status } }]);
      if (provider) await scheduleWork(DOMAIN_CHECK_KIND, [workItem(inserted!, inserted!.nextCheckAt!)]);
      return inserted!;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const q = await queryable();
    const [holder] = await q.select({ workspaceId: mailDomains.workspaceId, id: mailDomains.id }).from(mailDomains).where(sql`lower(${mailDomains.name}) = ${name}`);
    if (holder?.workspaceId === actor.workspaceId) throw new AppError("conflict", `This workspace already has the domain ${name} (${holder.id}).`, { domain_id: holder.id, errors: [{ field: "name", message: "already added" }] });
    throw new AppError("domain_taken", `The domain ${name} belongs to another workspace.`, { errors: [{ field: "name", message: "taken by another workspace" }] });
  }
  if (!provider) return row;
  try {
    return await registerRow(provider, row, actor);
  } catch (err) {
    if (err instanceof ProviderError && err.permanent) {
      await transaction(async (tx) => {
        await tx.delete(mailDomains).where(eq(mailDomains.id, row.id));
        await appendAudit(tx, [{ actor, action: "domain.deleted", resource: { type: "domain", id: row.id }, outcome: "failed", summary: { name, reason: "refused by Resend", error: err.message } }]);
      });
      throw new AppError("validation_failed", `Resend refused ${name}: ${err.message}`, { errors: [{ field: "name", message: err.message }], provider_error: err.providerName });
    }
    const error = (err as Error).message.slice(0, 500);
    const q = await queryable();
    const [kept] = await q.update(mailDomains).set({ lastError: error }).where(eq(mailDomains.id, row.id)).returning();
    return kept ?? row;
  }
}

/** Registers the domain with Resend (or adopts the one this deployment registered before under that name) and stores its records. */
async function registerRow(provider: Resend, row: MailDomainRow, actor: Actor): Promise<MailDomainRow> {
  let registered: ProviderDomain;
  try {
    registered = await registerDomain(provider, row.name);
  } catch (err) {
    // Resend already has it in this account (a deletion here whose removal there failed): take it back.
    const adopted = err instanceof ProviderError && err.permanent ? await findRegistered(provider, row.name).catch(() => null) : null;
    if (!adopted) throw err;
    registered = adopted;
  }
  return transaction(async (tx) => {
    const [locked] = await tx.select().from(mailDomains).where(eq(mailDomains.id, row.id)).for("update");
    if (!locked) return row;
    await tx.update(mailDomains).set({ providerId: registered.id, lastError: null }).where(eq(mailDomains.id, row.id));
    return applyProviderState(tx, { ...locked, providerId: registered.id }, registered, actor);
  });
}

/**
 * Stores what Resend says of a locked pending (or re-verified) domain: its records and their
 * states, its status, and the next check (none once verified or failed). A round still pending
 * 72 h after it began fails. `domain.verified` / `domain.failed` fire on the change, once.
 */
async function applyProviderState(tx: Transaction, row: MailDomainRow, d: ProviderDomain, actor: Actor): Promise<MailDomainRow> {
  const now = new Date();
  let status = statusOf(d.status);
  let lastError: string | null = null;
  const deadline = row.checksStartedAt.getTime() + DOMAIN_CHECK_WINDOW_MS;
  if (status === "pending" && now.getTime() >= deadline) {
    status = "failed";
    lastError = "The DNS records were not found within 72 hours. Create them, then verify again.";
  }
  if (status === "failed" && !lastError) lastError = "Resend could not verify the DNS records. Check them, then verify again.";
  const nextCheckAt = status === "pending" ? new Date(Math.min(now.getTime() + nextCheckDelay(row.checkAttempts), deadline)) : null;
  const [updated] = await tx
    .update(mailDomains)
    .set({ status, records: d.records, lastCheckedAt: now, nextCheckAt, lastError, ...(status === "verified" && row.status !== "verified" ? { verifiedAt: now } : {}) })
    .where(eq(mailDomains.id, row.id))
    .returning();
  if (status !== row.status && (status === "verified" || status === "failed")) {
    const data = { domain: serializeDomainForEvent(updated!) };
    await emitEvent(tx, actor, { type: status === "verified" ? "domain.verified" : "domain.failed", data });
    await appendAudit(tx, [{ actor, action: `domain.${status}`, resource: { type: "domain", id: row.id }, outcome: status === "failed" ? "failed" : "succeeded", summary: { name: row.name, ...(lastError ? { error: lastError } : {}) } }]);
  }
  if (nextCheckAt) await scheduleWork(DOMAIN_CHECK_KIND, [workItem(row, nextCheckAt)]);
  return updated!;
}

const serializeDomainForEvent = (d: MailDomainRow) => ({
  id: d.id,
  name: d.name,
  status: d.status,
  records: d.records,
  verified_at: d.verifiedAt?.toISOString() ?? null,
  last_error: d.lastError,
});

const checkActor = (d: Pick<MailDomainRow, "workspaceId">): Actor => ({ type: "system", workspaceId: d.workspaceId, job: "domain-check" });

/**
 * One scheduled check of one pending domain (the work kind): claims it if due (a lease, so two
 * runners never check it at once), asks Resend to verify and reads its state back, and stores
 * it with the next check (backoff 1 min, 5 min, 30 min, 2 h, 6 h, then every 12 h) or none once
 * it is verified or failed: then nothing is scheduled again. Resend unreachable: the next check
 * follows the same schedule, with `last_error`.
 */
export async function checkDomain(id: string, provider: Resend | null = domainProvider()): Promise<{ status: string; retryAt: Date | null } | null> {
  const q = await queryable();
  const [row] = await q
    .update(mailDomains)
    .set({ checkAttempts: sql`${mailDomains.checkAttempts} + 1`, nextCheckAt: sql`now() + make_interval(secs => ${CHECK_LEASE_MS / 1000})` })
    .where(and(eq(mailDomains.id, id), eq(mailDomains.status, "pending"), lte(mailDomains.nextCheckAt, sql`now()`)))
    .returning();
  if (!row) return null;
  if (!provider) {
    await q.update(mailDomains).set({ nextCheckAt: null }).where(eq(mailDomains.id, id));
    return { status: row.status, retryAt: null };
  }
  try {
    const updated = row.providerId ? await refresh(provider, row, checkActor(row)) : await registerRow(provider, row, checkActor(row));
    return { status: updated.status, retryAt: updated.nextCheckAt };
  } catch (err) {
    return transaction(async (tx) => {
      const [locked] = await tx.select().from(mailDomains).where(eq(mailDomains.id, id)).for("update");
      if (!locked || locked.status !== "pending") return { status: locked?.status ?? "deleted", retryAt: null };
      const deadline = locked.checksStartedAt.getTime() + DOMAIN_CHECK_WINDOW_MS;
      const nextCheckAt = new Date(Math.max(Date.now() + MINUTE, Math.min(Date.now() + nextCheckDelay(locked.checkAttempts), deadline)));
      await tx.update(mailDomains).set({ lastError: (err as Error).message.slice(0, 500), lastCheckedAt: new Date(), nextCheckAt }).where(eq(mailDomains.id, id));
      await scheduleWork(DOMAIN_CHECK_KIND, [workItem(locked, nextCheckAt)]);
      return { status: "pending", retryAt: nextCheckAt };
    });
  }
}

/** Asks Resend to verify, reads the state back, and stores it (the row locked, so a check and a verify never cross). */
async function refresh(provider: Resend, row: MailDomainRow, actor: Actor, restart = false): Promise<MailDomainRow> {
  await requestVerification(provider, row.providerId!);
  const d = await fetchDomain(provider, row.providerId!);
  return transaction(async (tx) => {
    const [locked] = await tx.select().from(mailDomains).where(eq(mailDomains.id, row.id)).for("update");
    if (!locked) throw notFound("domain", row.id);
    if (!restart && locked.status !== "pending") return locked;
    return applyProviderState(tx, locked, d, actor);
  });
}

/**
 * `POST /v1/domains/{id}/verify`: checks the DNS records now. A pending or failed domain starts a
 * new round of scheduled checks (1 min, 5 min … for 72 h) when it is still not verified; a
 * `capture_only` domain is registered with Resend once RESEND_API_KEY is set.
 */
export async function verifyDomain(actor: Actor, id: string): Promise<MailDomainRow> {
  refuseAgentBound(actor, "verify domains");
  const row = await getDomain(actor, id);
  const provider = domainProvider();
  if (!provider) return row;
  const restarted = await transaction(async (tx) => {
    const [locked] = await tx.select().from(mailDomains).where(eq(mailDomains.id, id)).for("update");
    if (!locked) throw notFound("domain", id);
    if (locked.status === "verified") return locked;
    const [r] = await tx
      .update(mailDomains)
      .set({ status: "pending", checkAttempts: 0, checksStartedAt: new Date(), nextCheckAt: new Date(Date.now() + nextCheckDelay(0)) })
      .where(eq(mailDomains.id, id))
      .returning();
    await appendAudit(tx, [{ actor, action: "domain.verify_requested", resource: { type: "domain", id }, summary: { name: r!.name, was: locked.status } }]);
    await scheduleWork(DOMAIN_CHECK_KIND, [workItem(r!, r!.nextCheckAt!)]);
    return r!;
  });
  try {
    if (!restarted.providerId) return await registerRow(provider, restarted, actor);
    if (restarted.status === "verified") {
      // Verified stays verified: only the records' states are refreshed (nothing is sent again).
      const d = await fetchDomain(provider, restarted.providerId);
      const q = await queryable();
      const [fresh] = await q.update(mailDomains).set({ records: d.records, lastCheckedAt: new Date() }).where(eq(mailDomains.id, id)).returning();
      return fresh ?? restarted;
    }
    return await refresh(provider, restarted, actor, true);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const q = await queryable();
    const [kept] = await q.update(mailDomains).set({ lastError: (err as Error).message.slice(0, 500), lastCheckedAt: new Date() }).where(eq(mailDomains.id, id)).returning();
    return kept ?? restarted;
  }
}

/**
 * `DELETE /v1/domains/{id}`: refused (409 `domain_in_use`) while inboxes have addresses on it.
 * The row is locked first, so an inbox being created on it at the same time either commits
 * before (and is counted) or fails its foreign key after. Removed from Resend after the commit.
 */
export async function deleteDomain(actor: Actor, id: string): Promise<MailDomainRow> {
  refuseAgentBound(actor, "delete domains");
  const row = await transaction(async (tx) => {
    const [locked] = await tx.select().from(mailDomains).where(and(eq(mailDomains.id, id), eq(mailDomains.workspaceId, actor.workspaceId))).for("update");
    if (!locked) throw notFound("domain", id);
    const [{ n }] = (await tx.select({ n: count() }).from(inboxes).where(eq(inboxes.domainId, id))) as [{ n: number }];
    if (Number(n) > 0) throw new AppError("domain_in_use", `${Number(n)} inbox(es) have addresses on ${locked.name}: delete them first.`, { inboxes: Number(n) });
    await tx.delete(mailDomains).where(eq(mailDomains.id, id));
    await appendAudit(tx, [{ actor, action: "domain.deleted", resource: { type: "domain", id }, summary: { name: locked.name, status: locked.status } }]);
    return locked;
  });
  const provider = domainProvider();
  if (provider && row.providerId) {
    await removeDomain(provider, row.providerId).catch((err) => console.warn(`[domains] ${row.name} was deleted here but Resend kept it: ${(err as Error).message}`));
  }
  return row;
}

/** Whether inboxes on this domain may be created and send: verified, or captured mail only while nothing is sent anywhere. */
export function domainUsable(d: Pick<MailDomainRow, "status">): boolean {
  return d.status === "verified" || (d.status === "capture_only" && domainProvider() === null);
}

function notVerified(d: Pick<MailDomainRow, "id" | "name" | "status">, doing: string): AppError {
  const why = d.status === "capture_only" ? "it was added without RESEND_API_KEY (capture mode) and has not been verified since" : `it is ${d.status}`;
  return new AppError("domain_not_verified", `Cannot ${doing} on ${d.name}: ${why}. Create the DNS records GET /v1/domains/${d.id} lists, then POST /v1/domains/${d.id}/verify.`, {
    domain: d.name,
    domain_id: d.id,
    domain_status: d.status,
  });
}

/** The workspace's domain named `name`, for a new inbox on it: 404 when it has none, 409 `domain_not_verified` unless usable. */
export async function domainForInbox(workspaceId: string, rawName: string): Promise<MailDomainRow> {
  const name = normaliseDomainName(rawName);
  const q = await queryable();
  const [row] = await q.select().from(mailDomains).where(and(eq(mailDomains.workspaceId, workspaceId), sql`lower(${mailDomains.name}) = ${name}`));
  if (!row) throw new AppError("not_found", `This workspace has no domain ${name.slice(0, 253)}: add it with POST /v1/domains first.`);
  if (!domainUsable(row)) throw notVerified(row, "create inboxes");
  return row;
}

/** Refuses to send from an inbox on a workspace domain that is not verified (409 `domain_not_verified`); nothing is stored. */
export async function assertInboxCanSend(inbox: Pick<InboxRow, "domainId">): Promise<void> {
  if (!inbox.domainId) return;
  const q = await queryable();
  const [d] = await q.select().from(mailDomains).where(eq(mailDomains.id, inbox.domainId));
  if (d && !domainUsable(d)) throw notVerified(d, "send");
}
