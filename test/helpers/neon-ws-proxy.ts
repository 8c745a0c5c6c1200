import net from "node:net";
import { WebSocketServer } from "ws";

/**
 * The WebSocket-to-TCP proxy Neon's serverless driver speaks to (its documented `wsProxy`
 * setting): each WebSocket carries one Postgres connection's bytes to `?address=host:port`.
 * Test use only, and it connects only to loopback.
 */
export async function startNeonWsProxy(): Promise<{ port: number; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (ws, req) => {
    const address = new URL(req.url ?? "/", "http://proxy").searchParams.get("address") ?? "";
    const [host, port] = address.split(":");
    if (!host || !port || !["127.0.0.1", "localhost", "::1"].includes(host)) {
      ws.close(1008, "loopback only");
      return;
    }
    const socket = net.connect(Number(port), host === "localhost" ? "127.0.0.1" : host);
    const pending: Buffer[] = [];
    socket.on("connect", () => pending.splice(0).forEach((b) => socket.write(b)));
    ws.on("message", (data: Buffer) => (socket.readyState === "open" ? socket.write(data) : pending.push(data)));
    socket.on("data", (chunk) => ws.send(chunk));
    socket.on("close", () => ws.close());
    socket.on("error", () => ws.close());
    ws.on("close", () => socket.destroy());
  });
  await new Promise((resolve) => wss.once("listening", resolve));
  const { port } = wss.address() as net.AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        wss.clients.forEach((c) => c.terminate());
        wss.close(() => resolve());
      }),
  };
}
