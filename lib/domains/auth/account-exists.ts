import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { users } from "../../../db/schema";

export async function accountExists(email: string): Promise<boolean> {
  const q = await queryable();
  const rows = await q.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`).limit(1);
  return rows.length > 0;
}
