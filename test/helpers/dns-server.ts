import dgram from "node:dgram";
import type { AddressInfo } from "node:net";

export type TestDns = {
  /** `127.0.0.1:PORT`, as SSO_DNS_SERVER takes it. */
  address: string;
  /** Publishes a name's TXT records (each record one string, split into 255-byte chunks on the wire). */
  setTxt: (name: string, records: string[]) => void;
  close: () => Promise<void>;
};

const TYPE_TXT = 16;
const CLASS_IN = 1;

/** The question's name (labels) and where the question ends, or null when the packet is not one. */
function readQuestion(msg: Buffer): { name: string; type: number; end: number } | null {
  if (msg.length < 12 || msg.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < msg.length) {
    const len = msg[at]!;
    if (len === 0) break;
    if (len > 63 || at + 1 + len > msg.length) return null;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString("ascii"));
    at += 1 + len;
  }
  if (at + 5 > msg.length) return null;
  return { name: labels.join(".").toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
}

function txtRdata(record: string): Buffer {
  const bytes = Buffer.from(record, "utf8");
  const parts: Buffer[] = [];
  for (let i = 0; i === 0 || i < bytes.length; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

/**
 * A small authoritative DNS server on loopback UDP (`port` 0: any free one) (RFC 1035 wire format) that answers TXT
 * questions from what the test published, NXDOMAIN for names it does not know, and an empty
 * answer for other types: what Node's resolver (c-ares) meets at a real DNS host.
 */
export async function startTestDns(port = 0): Promise<TestDns> {
  const zone = new Map<string, string[]>();
  const socket = dgram.createSocket("udp4");
  socket.on("message", (msg, rinfo) => {
    const q = readQuestion(msg);
    if (!q) return;
    const records = zone.get(q.name);
    const answers = records && q.type === TYPE_TXT ? records : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0); // the query's id
    // QR, AA, RD copied; RA; RCODE 3 (NXDOMAIN) when the name is unknown.
    header.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | (records ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const question = msg.subarray(12, q.end);
    const rrs = answers.map((record) => {
      const rdata = txtRdata(record);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      rr.writeUInt16BE(TYPE_TXT, 2);
      rr.writeUInt16BE(CLASS_IN, 4);
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    socket.send(Buffer.concat([header, question, ...rrs]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(port, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    setTxt: (name, records) => zone.set(name.toLowerCase().replace(/\.$/, ""), records),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
