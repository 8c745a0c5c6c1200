// The public entry of lib/domains/notifications: what another domain may use of it (a domain never reaches into another's files).
export { queueNotifications } from "./queue-notifications";
