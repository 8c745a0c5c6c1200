import type { Operation } from "../operation";
import { createAgentOp, getAgentOp, listAgentsOp } from "../../agents/operations";
import { getMeOp } from "../../api-keys/me";
import { exportAuditOp, listAuditOp, verifyAuditOp } from "../../audit/operations";
import {
  createWebhookEndpointOp,
  deleteWebhookEndpointOp,
  getWebhookEndpointOp,
  listWebhookDeliveriesOp,
  listWebhookEndpointsOp,
  retryWebhookDeliveryOp,
  rotateWebhookSecretOp,
  updateWebhookEndpointOp,
} from "../../webhooks/operations";

/** Every /api/v1 operation. A test checks this list against the route files, both ways. */
export const OPERATIONS: Operation[] = [
  getMeOp,
  createAgentOp,
  listAgentsOp,
  getAgentOp,
  listAuditOp,
  verifyAuditOp,
  exportAuditOp,
  createWebhookEndpointOp,
  listWebhookEndpointsOp,
  getWebhookEndpointOp,
  updateWebhookEndpointOp,
  deleteWebhookEndpointOp,
  rotateWebhookSecretOp,
  listWebhookDeliveriesOp,
  retryWebhookDeliveryOp,
] as Operation[];
