import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { paginationQuery } from "../../platform/api/pagination";
import { auditCheckpointSchema, auditEntrySchema, auditFilters, chainVerificationSchema, listAuditQuery, verifyAuditQuery } from "./schemas";

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
  query: verifyAuditQuery,
  description: "Checks the chain against a signed checkpoint too (the one given by a witness, else the latest stored), so a rewrite of the whole chain or a cut of its newest entries is caught.",
  responses: { 200: { description: "The verification result", schema: chainVerificationSchema } },
});

export const listCheckpointsOp = defineOperation({
  method: "GET",
  path: "/v1/audit/checkpoints",
  operationId: "listAuditCheckpoints",
  summary: "Signed checkpoints of the chain head, newest first, for a witness to keep outside AgentDraft",
  description: "Workspace-wide keys only. Each is a compact JWS (EdDSA) over {workspace_id, seq, hash, signed_at}, made at most every 5 minutes while the trail grows.",
  tag: "Audit",
  scope: "audit",
  query: paginationQuery,
  responses: { 200: { description: "A page of checkpoints", schema: listOf(auditCheckpointSchema) } },
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
