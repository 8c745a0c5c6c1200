import { getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";

/**
 * A row that SQL returned as JSON (`row_to_json(t)`: column names, timestamps as text) as the
 * row drizzle would have returned: property names and Dates. Lets one statement return rows of
 * several tables (a claim and what it needs) without a round trip per table.
 */
export function rowFromJson<T extends Table>(table: T, json: Record<string, unknown>): InferSelectModel<T> {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = json[column.name];
    out[key] = value !== null && value !== undefined && column.columnType === "PgTimestamp" ? new Date(value as string) : (value ?? null);
  }
  return out as InferSelectModel<T>;
}

/** A json/jsonb value as a driver returned it: parsed already (pg, PGlite, Neon) or as text. */
export function jsonValue<T>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}
