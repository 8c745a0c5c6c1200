import { customType } from "drizzle-orm/pg-core";

/** Postgres `tstzrange`; drizzle has no range type. Written by generated columns only. */
export const tstzrange = customType<{ data: string; driverData: string }>({
  dataType: () => "tstzrange",
});
