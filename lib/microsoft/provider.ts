import type { CalendarProvider } from "../calendar-sync/provider";

export const microsoftProvider = null as unknown as CalendarProvider;
