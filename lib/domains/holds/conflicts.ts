/** What stands in the way of a hold, as hold_conflict lists it (built by the database's functions). */
export type Conflict =
  | { type: "event"; id: string; calendar_id: string; start_time: string; end_time: string }
  | { type: "external_busy"; id: string; calendar_id: string; source: "google" | "microsoft"; start_time: string; end_time: string }
  | { type: "hold"; id: string; calendar_ids: string[]; agent_id: string | null; priority: number; start_time: string; end_time: string; expires_at: string };
