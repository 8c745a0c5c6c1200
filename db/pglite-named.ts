import type { PGlite, QueryOptions } from "@electric-sql/pglite";

/**
 * Named prepared statements on PGlite. PGlite's `query()` sends Parse, Describe, Bind, Describe,
 * Execute and Sync for every call: Postgres (in WASM, on the server's own thread) parses,
 * analyses and plans the text each time. Here a fixed text is parsed once per PGlite instance
 * under a name, and each call only binds and executes it, as node-postgres does with a named
 * statement (db/prepared.ts). The results are parsed by PGlite's own parser with the options
 * drizzle gives its raw queries, so rows are exactly what `db.execute()` returns.
 *
 * PGlite runs one statement at a time: the exchange holds its query lock and, outside a
 * transaction, its transaction lock too (as `query()` does), so nothing interleaves with it.
 */
type Pglite = PGlite & {
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
};

/**
 * Per PGlite instance: each statement name it has parsed, with its parameters' type ids. Kept on
 * the instance itself, not in this module: Next.js bundles server code once per layer (route
 * handlers, server actions, pages), so this module can exist several times in one process, all
 * sharing the one PGlite; a map per module copy would parse a name another copy had parsed
 * already, and Postgres refuses that (42P05), aborting the caller's transaction.
 */
const PARSED = Symbol.for("agentdraft.pglite.parsedStatements");
type WithParsed = PGlite & { [PARSED]?: Map<string, number[]> };
function parsedOn(pg: PGlite): Map<string, number[]> {
  const holder = pg as WithParsed;
  return (holder[PARSED] ??= new Map());
}

const concat = (parts: Uint8Array[]) => Buffer.concat(parts);

/**
 * PGlite's own parsers and serializers with the caller's on top, merged once per (instance,
 * options) rather than on every statement (PGlite's parseResults spreads both maps per call).
 */
type Merged = { serializers: PGlite["serializers"]; parsers: PGlite["parsers"]; rest: QueryOptions };
const mergedOptions = new WeakMap<PGlite, WeakMap<QueryOptions, Merged>>();
function merged(pg: PGlite, options: QueryOptions) {
  let perPg = mergedOptions.get(pg);
  if (!perPg) mergedOptions.set(pg, (perPg = new WeakMap()));
  let m = perPg.get(options);
  if (!m) {
    const { parsers, serializers, ...rest } = options;
    m = { serializers: { ...pg.serializers, ...serializers }, parsers: { ...pg.parsers, ...parsers }, rest };
    perPg.set(options, m);
  }
  return m;
}

let protocolModule: Promise<typeof import("@electric-sql/pglite")> | undefined;
const pgliteModule = () => (protocolModule ??= import("@electric-sql/pglite"));

/**
 * Runs the statement `text` (parameters `params`) named `name` on `pg`; `inTransaction` when the
 * caller holds a transaction open on it. `options` are the row mode and parsers of the caller's
 * raw queries. Errors are PGlite's own (a DatabaseError with the SQLSTATE in `code`).
 */
export async function pgliteExecuteNamed<R>(pg: PGlite, inTransaction: boolean, name: string, text: string, params: unknown[], options: QueryOptions): Promise<{ rows: R[] }> {
  const { protocol, parse } = await pgliteModule();
  const { serialize } = protocol;
  const client = pg as Pglite;
  const send = (message: Uint8Array) => pg.execProtocolStream(message, { syncToFs: false });
  const exchange = async () => {
    const names = parsedOn(pg);
    let types = names.get(name);
    try {
      if (!types) {
        // Parse, Describe and Sync in one exchange: each call into PGlite costs more than the messages.
        types = parse.parseDescribeStatementResults(await send(concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()])));
        names.set(name, types);
      }
      const { serializers, parsers, rest } = merged(pg, options);
      const values = params.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serializer = serializers[types![i]!];
        return serializer ? serializer(value) : String(value);
      });
      // Bind, Describe, Execute and Sync in one exchange; an error still ends at the Sync, so the session is ready again.
      const messages = await send(concat([serialize.bind({ statement: name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()]));
      if (!inTransaction) await pg.syncToFs();
      return { rows: (parse.parseResults(messages, parsers, rest)[0]?.rows ?? []) as R[] };
    } catch (err) {
      // Parsed but not described, or a plan whose result changed under it (0A000 after DDL): gone, parsed again next time.
      if (!names.has(name) || (err as { code?: string }).code === "0A000") {
        names.delete(name);
        await send(concat([serialize.close({ type: "S", name }), serialize.sync()]));
      }
      throw err;
    }
  };
  const exclusive = () => client._runExclusiveQuery(exchange);
  return inTransaction ? exclusive() : client._runExclusiveTransaction(exclusive);
}
