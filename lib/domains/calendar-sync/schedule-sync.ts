import type { GoogleCalendarLinkRow } from "../../../db/schema";
import { scheduleWork } from "../../platform/jobs/schedule";
import type { CalendarProvider } from "./provider";

/** After the transaction commits (or at once): sync this link now, as its provider's work kind. */
export function scheduleSync(provider: Pick<CalendarProvider, "syncKind">, link: Pick<GoogleCalendarLinkRow, "id" | "workspaceId" | "connectionId">): void {
  scheduleWork(provider.syncKind, [{ id: link.id, workspaceId: link.workspaceId, key: link.connectionId, dueAt: new Date() }]);
}
