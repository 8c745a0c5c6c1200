import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { calendarOrphanSchema, listOrphansQuery } from "./orphan-schemas";

export const listCalendarOrphansOp = defineOperation({
  method: "GET",
  path: "/v1/calendar-orphans",
  operationId: "listCalendarOrphans",
  summary: "List orphans in linked calendars, newest first",
  description:
    "Orphans are events in a linked Google or Outlook calendar tagged as AgentDraft's that AgentDraft does not stand behind (a second copy, a tag naming " +
    "no event exported there, a copy whose removal failed), found by the daily drift check and reported once (webhook calendar.orphan_found). " +
    "status=open (default) lists those waiting for a person; a member dismisses one in the web app. calendar_id narrows to one calendar.",
  tag: "Calendars",
  scope: "calendar",
  query: listOrphansQuery,
  responses: { 200: { description: "A page of orphans", schema: listOf(calendarOrphanSchema) } },
});
