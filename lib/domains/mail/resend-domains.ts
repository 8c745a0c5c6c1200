import type { Resend } from "resend";
import type { MailDomainRecord } from "../../../db/schema";
import { capturesOutbound } from "../../platform/config/preview";
import { resendClient } from "./resend-client";

/** Resend's answer about one domain: its id, overall status and the records with their states. */
export type ProviderDomain = { id: string; name: string; status: string; records: MailDomainRecord[] };

/** Resend refused or failed a domain call. `status`: its HTTP status (null: it could not be reached). */
export class ProviderError extends Error {
  override name = "ProviderError";
  constructor(
    message: string,
    readonly status: number | null,
    readonly providerName: string | null = null,
  ) {
    super(message);
  }
  /** A 4xx other than 429: asking again the same way cannot succeed. */
  get permanent(): boolean {
    return this.status !== null && this.status >= 400 && this.status < 500 && this.status !== 429;
  }
}

/**
 * The Resend client that registers workspace domains, or null in capture mode (no
 * RESEND_API_KEY, or a Preview deployment that captures mail): then domains are `capture_only`.
 */
export function domainProvider(): Resend | null {
  if (capturesOutbound("mail")) return null;
  return resendClient();
}

type Result<T> = { data: T | null; error: { message: string; statusCode: number | null; name: string } | null };

async function call<T>(what: string, run: () => Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await run();
  } catch (err) {
    throw new ProviderError(`Resend could not be reached (${what}): ${(err as Error).message}`, null);
  }
  if (result.error || !result.data) {
    const status = result.error?.statusCode ?? null;
    throw new ProviderError(`Resend ${what}: ${result.error?.message ?? "no answer"}`.slice(0, 500), status, result.error?.name ?? null);
  }
  return result.data;
}

type RawRecord = { record: string; name: string; type: string; value: string; ttl: string; status: string; priority?: number };
const records = (list: RawRecord[] | undefined): MailDomainRecord[] =>
  (list ?? []).slice(0, 50).map((r) => ({
    record: String(r.record).slice(0, 40),
    name: String(r.name).slice(0, 300),
    type: String(r.type).slice(0, 10),
    value: String(r.value).slice(0, 2000),
    ttl: String(r.ttl ?? "Auto").slice(0, 20),
    priority: typeof r.priority === "number" ? r.priority : null,
    status: String(r.status).slice(0, 40),
  }));

const toDomain = (d: { id: string; name: string; status: string; records?: RawRecord[] }): ProviderDomain => ({ id: d.id, name: d.name, status: d.status, records: records(d.records) });

/** POST /domains, for sending and receiving (the MX record for Resend's inbound comes with it). */
export async function registerDomain(resend: Resend, name: string): Promise<ProviderDomain> {
  return toDomain(await call("refused the domain", () => resend.domains.create({ name, capabilities: { sending: "enabled", receiving: "enabled" } }) as Promise<Result<{ id: string; name: string; status: string; records: RawRecord[] }>>));
}

/** GET /domains/{id}: the domain's status and its records' states as Resend last checked them. */
export async function fetchDomain(resend: Resend, id: string): Promise<ProviderDomain> {
  return toDomain(await call("could not read the domain", () => resend.domains.get(id) as Promise<Result<{ id: string; name: string; status: string; records: RawRecord[] }>>));
}

/** POST /domains/{id}/verify: asks Resend to look at the DNS records now. */
export async function requestVerification(resend: Resend, id: string): Promise<void> {
  await call("could not start verification", () => resend.domains.verify(id));
}

/** GET /domains (first page of 100): finds a domain this deployment registered before by its name. */
export async function findRegistered(resend: Resend, name: string): Promise<ProviderDomain | null> {
  const list = await call("could not list domains", () => resend.domains.list({ limit: 100 }));
  const found = list.data.find((d) => d.name.toLowerCase() === name);
  return found ? fetchDomain(resend, found.id) : null;
}

/** DELETE /domains/{id}; a domain Resend no longer has counts as removed. */
export async function removeDomain(resend: Resend, id: string): Promise<void> {
  try {
    await call("could not remove the domain", () => resend.domains.remove(id));
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) return;
    throw err;
  }
}

/**
 * Resend's domain status in AgentDraft's terms: `verified` and `failed` are final (Resend fails
 * a domain 72 h after it stopped finding the records); every other state (not_started, pending,
 * temporary_failure, partially_verified, partially_failed) is still `pending`.
 */
export function statusOf(providerStatus: string): "pending" | "verified" | "failed" {
  if (providerStatus === "verified") return "verified";
  if (providerStatus === "failed") return "failed";
  return "pending";
}
