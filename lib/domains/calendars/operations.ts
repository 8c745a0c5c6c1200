import { defineOperation } from "../../platform/api/operation";
import { listOf } from "../../platform/api/common-schemas";
import { paginationQuery } from "../../platform/api/pagination";
import { availabilitySchema, calendarEventSchema, calendarSchema, createCalendarInput, listEventsQuery, timeRangeQuery } from "./schemas";

const tag = "Calendars";

export const createCalendarOp = defineOperation({
  method: "POST",
  path: "/v1/calendars",
  operationId: "createCalendar",
  summary: "Create a calendar (a bookable resource: a person, a room, a cluster)",
  idempotency: "statement",
  tag,
  scope: "calendar",
  body: createCalendarInput,
  responses: { 201: { description: "The calendar", schema: calendarSchema } },
});

export const listCalendarsOp = defineOperation({
  method: "GET",
  path: "/v1/calendars",
  operationId: "listCalendars",
  summary: "List calendars, newest first",
  tag,
  scope: "calendar",
  query: paginationQuery,
  responses: { 200: { description: "A page of calendars", schema: listOf(calendarSchema) } },
});

export const getCalendarOp = defineOperation({
  method: "GET",
  path: "/v1/calendars/{id}",
  operationId: "getCalendar",
  summary: "Retrieve a calendar",
  tag,
  scope: "calendar",
  responses: { 200: { description: "The calendar", schema: calendarSchema } },
});

export const availabilityOp = defineOperation({
  method: "GET",
  path: "/v1/calendars/{id}/availability",
  operationId: "getAvailability",
  summary: "Free/busy between from and to (at most 62 days)",
  description: "Busy slots are committed events and live holds; a live hold's priority tells whether yours would preempt it.",
  tag,
  scope: "calendar",
  query: timeRangeQuery,
  responses: { 200: { description: "Free and busy time", schema: availabilitySchema } },
});

export const listEventsOp = defineOperation({
  method: "GET",
  path: "/v1/calendars/{id}/events",
  operationId: "listCalendarEvents",
  summary: "List a calendar's committed events, newest first",
  tag,
  scope: "calendar",
  query: listEventsQuery,
  responses: { 200: { description: "A page of events", schema: listOf(calendarEventSchema) } },
});

export const cancelEventOp = defineOperation({
  method: "DELETE",
  path: "/v1/events/{id}",
  operationId: "cancelEvent",
  summary: "Cancel a committed event, freeing its time",
  tag,
  scope: "calendar",
  responses: { 200: { description: "The cancelled event", schema: calendarEventSchema } },
});

