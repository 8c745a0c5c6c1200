import { vi } from "vitest";
import { getDb, getDriver } from "../../db/client";

/**
 * Counts the statements the database receives from here on, as its driver sends them: on
 * node-postgres and Neon each `query` call (named prepared statements included); on PGlite each
 * Execute (extended protocol: named statements and `query()` alike) and each simple Query
 * message (`exec()`), as they reach the WASM backend, one call or several messages a call.
 */
export async function countStatements(): Promise<{ count: () => number; restore: () => void }> {
  const client = ((await getDb()) as unknown as { $client: Record<string, (...args: unknown[]) => unknown> }).$client;
  if ((await getDriver()) !== "pglite") {
    const spy = vi.spyOn(client, "query");
    return { count: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
  }
  let n = 0;
  const original = (client.execProtocolStream as (...a: unknown[]) => unknown).bind(client);
  const spy = vi.spyOn(client, "execProtocolStream").mockImplementation((...args: unknown[]) => {
    // Front-end messages: a type byte, then a 4-byte length that counts itself; several may come in one call.
    const buffer = Buffer.from(args[0] as Uint8Array);
    for (let at = 0; at + 5 <= buffer.length; at += 1 + buffer.readUInt32BE(at + 1)) {
      if (buffer[at] === 0x45 /* E */ || buffer[at] === 0x51 /* Q */) n++;
    }
    return original(...args);
  });
  return { count: () => n, restore: () => spy.mockRestore() };
}
