import { defineOperation } from "../api/operation";
import { listOf } from "../api/common-schemas";
import { auditEntrySchema, auditFilters, chainVerificationSchema, listAuditQuery } from "./schemas";

export const listAuditOp = defineOperation({
  method: "GET",
  path: "/v1/audit",
  operationId: "listAuditEntries",
  summary: "List audit entries, newest first",
  description: "Filters combine with AND. An agent-bound key sees only entries of its own agent.",
  tag: "Audit",
  scope: "audit",
  query: listAuditQuery,
  responses: { 200: { description: "A page of audit entries", schema: listOf(auditEntrySchema) } },
});

export const verifyAuditOp = defineOperation({
  method: "GET",
  path: "/v1/audit/verify",
  operationId: "verifyAuditChain",
  summary: "Recompute the workspace's hash chain and name the first broken link",
  tag: "Audit",
  scope: "audit",
  responses: { 200: { description: "The verification result", schema: chainVerificationSchema } },
});

export const exportAuditOp = defineOperation({
  method: "GET",
  path: "/v1/audit/export",
  operationId: "exportAuditEntries",
  summary: "Export audit entries as JSON Lines, oldest first (streamed)",
  tag: "Audit",
  scope: "audit",
  query: auditFilters,
  responses: { 200: { description: "One audit entry per line", schema: auditEntrySchema, contentType: "application/jsonl" } },
});
