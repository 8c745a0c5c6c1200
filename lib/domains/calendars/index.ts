// The public entry of lib/domains/calendars: what another domain may use of it (a domain never reaches into another's files).
export { lockCalendars } from "./lock-calendars";
export { reconciliationJson } from "./serialize";
