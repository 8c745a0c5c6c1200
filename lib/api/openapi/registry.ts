import type { Operation } from "../operation";
import { createAgentOp, getAgentOp, listAgentsOp } from "../../agents/operations";
import { getMeOp } from "../../api-keys/me";
import { exportAuditOp, listAuditOp, listCheckpointsOp, verifyAuditOp } from "../../audit/operations";
import {
  availabilityOp,
  cancelEventOp,
  createCalendarOp,
  getCalendarOp,
  listCalendarsOp,
  listEventsOp,
} from "../../calendars/operations";
import {
  commitHoldOp,
  extendHoldOp,
  getHoldOp,
  listHoldsOp,
  placeHoldOp,
  placeMultiHoldOp,
  releaseHoldOp,
} from "../../holds/operations";
import {
  createInboxOp,
  getAttachmentOp,
  getInboxOp,
  getMessageOp,
  getThreadOp,
  listInboxesOp,
  listMessagesOp,
  listThreadsOp,
  replyToMessageOp,
  sendMessageOp,
  updateInboxOp,
} from "../../mail/operations";
import { cancelApprovalOp, checkApprovalOp, createApprovalOp, getApprovalOp, listApprovalsOp } from "../../approvals/operations";
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
import { streamEventsOp } from "../../events/operations";
import { deleteInboxOp } from "../../mail/delete-inbox";

/** Every /api/v1 operation. A test checks this list against the route files, both ways. */
export const OPERATIONS: Operation[] = [
  getMeOp,
  createAgentOp,
  listAgentsOp,
  getAgentOp,
  listAuditOp,
  verifyAuditOp,
  listCheckpointsOp,
  exportAuditOp,
  createCalendarOp,
  listCalendarsOp,
  getCalendarOp,
  availabilityOp,
  listEventsOp,
  cancelEventOp,
  placeHoldOp,
  placeMultiHoldOp,
  listHoldsOp,
  getHoldOp,
  extendHoldOp,
  commitHoldOp,
  releaseHoldOp,
  createInboxOp,
  listInboxesOp,
  getInboxOp,
  updateInboxOp,
  listMessagesOp,
  sendMessageOp,
  listThreadsOp,
  getMessageOp,
  replyToMessageOp,
  getThreadOp,
  getAttachmentOp,
  createApprovalOp,
  listApprovalsOp,
  getApprovalOp,
  cancelApprovalOp,
  checkApprovalOp,
  createWebhookEndpointOp,
  listWebhookEndpointsOp,
  getWebhookEndpointOp,
  updateWebhookEndpointOp,
  deleteWebhookEndpointOp,
  rotateWebhookSecretOp,
  listWebhookDeliveriesOp,
  retryWebhookDeliveryOp,
  streamEventsOp,
  deleteInboxOp,
] as Operation[];
