import { z } from "zod";
import type { MailDomainRow } from "../../../db/schema";
import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { paginationQuery } from "../../platform/api/pagination";
import { MAX_DOMAIN_LENGTH } from "./domain-name";
import { DOMAIN_CHECK_WINDOW_MS } from "./mail-domains";

const tag = "Domains";
const scope = "mail" as const;
const workspaceWide = "Needs a workspace-wide key (an agent-bound key is refused with 403).";

export const createDomainInput = z.object({
  name: z
    .string()
    .min(1)
    .max(MAX_DOMAIN_LENGTH + 1)
    .describe(`the domain, e.g. support.acme.com: at most ${MAX_DOMAIN_LENGTH} characters, labels of 1 to 63 letters, digits and hyphens; not an IP address, not this deployment's AGENTDRAFT_MAIL_DOMAIN (international names are stored in punycode)`),
});

export const domainRecordSchema = z
  .object({
    record: z.string().describe("what the record is for, as Resend names it: `SPF` (the return path's MX and TXT), `DKIM`, `Receiving` (the MX for inbound mail)"),
    name: z.string().describe("the host to create it at, relative to the domain as Resend gives it"),
    type: z.string().describe("MX, TXT or CNAME"),
    value: z.string(),
    ttl: z.string(),
    priority: z.number().int().nullable().describe("MX records only"),
    status: z.string().describe("Resend's state of the record: not_started, pending, verified, failed or temporary_failure"),
  })
  .meta({ id: "DomainRecord" });

export const domainSchema = z
  .object({
    id: z.string().describe("dom_..."),
    object: z.literal("domain"),
    name: z.string(),
    status: z.enum(["pending", "verified", "failed", "capture_only"]).describe(
      "`pending`: waiting for the DNS records; `verified`: inboxes on it send; `failed`: not verified (Resend gave up, or 72 h passed) — fix the records and verify again; `capture_only`: no RESEND_API_KEY on this deployment, nothing is verified and mail on it is only captured",
    ),
    records: z.array(domainRecordSchema).describe("the DNS records to create, each with its state"),
    note: z.string().nullable().describe("what the status means now, in words"),
    inboxes: z.number().int().describe("inboxes with an address on the domain"),
    next_check_at: z.iso.datetime().nullable().describe("the next scheduled check (none once verified or failed)"),
    last_checked_at: z.iso.datetime().nullable(),
    last_error: z.string().nullable(),
    verified_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Domain" });

const noteFor = (d: MailDomainRow): string | null => {
  if (d.status === "capture_only") return "Capture mode (no RESEND_API_KEY): nothing is verified. Inboxes on this domain work, and their mail is captured here, never sent.";
  if (d.status === "pending") return d.providerId ? "Create the DNS records below; the domain is checked again on a schedule (or verify it now)." : "Not registered with Resend yet (it could not be reached); retried on the schedule.";
  if (d.status === "failed") return "Not verified. Fix the DNS records, then verify again.";
  return null;
};

export const serializeDomain = (d: MailDomainRow, inboxes = 0) => ({
  id: d.id,
  object: "domain" as const,
  name: d.name,
  status: d.status,
  records: d.records.map((r) => ({ record: r.record, name: r.name, type: r.type, value: r.value, ttl: r.ttl, priority: r.priority, status: r.status })),
  note: noteFor(d),
  inboxes,
  next_check_at: d.nextCheckAt?.toISOString() ?? null,
  last_checked_at: d.lastCheckedAt?.toISOString() ?? null,
  last_error: d.lastError,
  verified_at: d.verifiedAt?.toISOString() ?? null,
  created_at: d.createdAt.toISOString(),
});

export const createDomainOp = defineOperation({
  method: "POST",
  path: "/v1/domains",
  operationId: "createDomain",
  summary: "Add the workspace's own mail domain",
  description:
    `Registers the domain with Resend and answers with the DNS records to create (SPF and return path, DKIM, and the MX for inbound mail); it is then checked again on a schedule (1 min, 5 min, 30 min, 2 h, 6 h, then every 12 h, for ${DOMAIN_CHECK_WINDOW_MS / 3_600_000} h) until verified or failed. ` +
    "A domain belongs to one workspace: another workspace's is 409 `domain_taken`. Without RESEND_API_KEY the domain is `capture_only`. " +
    workspaceWide,
  tag,
  scope,
  body: createDomainInput,
  responses: { 201: { description: "The domain, with its DNS records", schema: domainSchema } },
});

export const listDomainsOp = defineOperation({
  method: "GET",
  path: "/v1/domains",
  operationId: "listDomains",
  summary: "List the workspace's mail domains, newest first",
  tag,
  scope,
  query: paginationQuery,
  responses: { 200: { description: "A page of domains", schema: listOf(domainSchema) } },
});

export const getDomainOp = defineOperation({
  method: "GET",
  path: "/v1/domains/{id}",
  operationId: "getDomain",
  summary: "Retrieve a domain with its DNS records and their states",
  tag,
  scope,
  responses: { 200: { description: "The domain", schema: domainSchema } },
});

export const verifyDomainOp = defineOperation({
  method: "POST",
  path: "/v1/domains/{id}/verify",
  operationId: "verifyDomain",
  summary: "Check the domain's DNS records now",
  description: `Asks Resend to check the records and answers with their states. Still not verified, the scheduled checks start over (1 min, 5 min … for ${DOMAIN_CHECK_WINDOW_MS / 3_600_000} h); a failed domain is pending again. ${workspaceWide}`,
  tag,
  scope,
  responses: { 200: { description: "The domain, as checked", schema: domainSchema } },
});

export const deletedDomainSchema = z.object({ id: z.string(), object: z.literal("domain"), name: z.string(), deleted: z.literal(true) }).meta({ id: "DeletedDomain" });

export const deleteDomainOp = defineOperation({
  method: "DELETE",
  path: "/v1/domains/{id}",
  operationId: "deleteDomain",
  summary: "Remove a domain from the workspace (and from Resend)",
  description: `Refused with 409 \`domain_in_use\` while inboxes have addresses on it. ${workspaceWide}`,
  tag,
  scope,
  responses: { 200: { description: "Deleted", schema: deletedDomainSchema } },
});
