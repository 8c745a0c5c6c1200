import net from "node:net";

/**
 * A TCP proxy on loopback in front of Postgres that delays every chunk by `delayMs` in each
 * direction (a database a region-hop away), and counts the statements clients send (simple
 * Query and extended-protocol Execute messages of the Postgres wire protocol).
 */
export async function startDelayProxy(upstream: { host: string; port: number }, delayMs: number) {
  let statements = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const db = net.connect(upstream.port, upstream.host);
    sockets.add(client).add(db);
    client.setNoDelay(true);
    db.setNoDelay(true);
    const pipe = (from: net.Socket, to: net.Socket, onData?: (b: Buffer) => void) => {
      from.on("data", (chunk) => {
        onData?.(chunk);
        if (delayMs > 0) setTimeout(() => to.write(chunk), delayMs);
        else to.write(chunk);
      });
      from.on("close", () => setTimeout(() => to.destroy(), delayMs));
      from.on("error", () => to.destroy());
    };
    // Client to server: after the startup message, messages are [type][int32 length][payload].
    let started = false;
    let pending = Buffer.alloc(0);
    const count = (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 4) return;
          const len = pending.readInt32BE(0);
          if (pending.length < len) return;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(len);
          if (code !== 80877103) started = true; // an SSLRequest is followed by the real startup message
          continue;
        }
        if (pending.length < 5) return;
        const len = pending.readInt32BE(1);
        if (pending.length < len + 1) return;
        const type = String.fromCharCode(pending[0]!);
        if (type === "Q" || type === "E") statements++;
        pending = pending.subarray(len + 1);
      }
    };
    pipe(client, db, count);
    pipe(db, client);
    client.on("close", () => sockets.delete(client));
    db.on("close", () => sockets.delete(db));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as net.AddressInfo).port,
    statements: () => statements,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
