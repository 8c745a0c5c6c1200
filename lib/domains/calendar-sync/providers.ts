import type { CalendarProviderId } from "../../../db/schema";
import type { CalendarProvider } from "./provider";

/** A provider's implementation, loaded only when one of its items runs (cold starts never pay for the client libraries). */
export async function loadProvider(id: CalendarProviderId): Promise<CalendarProvider> {
  if (id === "microsoft") return (await import("./microsoft/provider")).microsoftProvider;
  return (await import("./google/provider")).googleProvider;
}
