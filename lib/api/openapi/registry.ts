import type { Operation } from "../operation";
import { createAgentOp, getAgentOp, listAgentsOp } from "../../agents/operations";
import { getMeOp } from "../../api-keys/me";
import { exportAuditOp, listAuditOp, verifyAuditOp } from "../../audit/operations";

/** Every /api/v1 operation. A test checks this list against the route files, both ways. */
export const OPERATIONS: Operation[] = [
  getMeOp,
  createAgentOp,
  listAgentsOp,
  getAgentOp,
  listAuditOp,
  verifyAuditOp,
  exportAuditOp,
] as Operation[];
