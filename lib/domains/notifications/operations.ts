import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { paginationQuery } from "../../platform/api/pagination";
import { channelSchema } from "./schemas";

export const listNotificationChannelsOp = defineOperation({
  method: "GET",
  path: "/v1/notification-channels",
  operationId: "listNotificationChannels",
  summary: "List notification channels, newest first",
  description:
    "The workspace's Slack, Microsoft Teams and Discord channels that approval requests, escalations, decisions, disabled webhook endpoints and calendar sync failures are posted to: their routing rules, quiet hours and health (`status`, `last_error`). Secrets (bot tokens, webhook URLs) are never returned. Admins manage channels in the web app.",
  tag: "Notification channels",
  scope: "approvals",
  query: paginationQuery,
  responses: { 200: { description: "A page of channels", schema: listOf(channelSchema) } },
});
