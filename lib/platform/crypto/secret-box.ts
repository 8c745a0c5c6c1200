import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ConfigError, env } from "../config/env";

type Key = { id: string; bytes: Buffer };

let cached: { source: string; keys: Key[] } | undefined;

const keyId = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex").slice(0, 8);

function parseKeys(value: string): Key[] {
  return value.split(",").map((k, i) => {
    const bytes = Buffer.from(k.trim(), "base64");
    if (bytes.length !== 32) throw new ConfigError(`AGENTDRAFT_ENCRYPTION_KEYS: key ${i + 1} must be 32 bytes, base64 (openssl rand -base64 32).`);
    return { id: keyId(bytes), bytes };
  });
}

/** Development only: one key kept beside the embedded database (or in memory for memory:// tests). */
function developmentKey(): Key[] {
  const dir = env().AGENTDRAFT_DATA_DIR;
  if (dir.startsWith("memory://")) {
    const bytes = randomBytes(32);
    return [{ id: keyId(bytes), bytes }];
  }
  const file = path.join(path.resolve(dir), "encryption.key");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" });
  }
  return parseKeys(fs.readFileSync(file, "utf8"));
}

/** The configured keys, first one current. Production without AGENTDRAFT_ENCRYPTION_KEYS is a config error, never a silent fallback. */
function keys(): Key[] {
  const configured = env().AGENTDRAFT_ENCRYPTION_KEYS;
  const source = configured ?? `dev:${env().AGENTDRAFT_DATA_DIR}`;
  if (cached?.source === source) return cached.keys;
  if (!configured && env().NODE_ENV === "production") {
    throw new ConfigError("AGENTDRAFT_ENCRYPTION_KEYS is required in production (openssl rand -base64 32).");
  }
  cached = { source, keys: configured ? parseKeys(configured) : developmentKey() };
  return cached.keys;
}

/** AES-256-GCM: `v1.<key id>.<iv>.<ciphertext+tag>` (base64url). */
export function seal(plaintext: string): string {
  const key = keys()[0]!;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key.bytes, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return ["v1", key.id, iv.toString("base64url"), body.toString("base64url")].join(".");
}

export function open(sealed: string): string {
  const [version, id, iv, body] = sealed.split(".");
  const key = keys().find((k) => k.id === id);
  if (version !== "v1" || !key || !iv || !body) throw new Error(`Cannot decrypt: no configured key ${id} (check AGENTDRAFT_ENCRYPTION_KEYS).`);
  const data = Buffer.from(body, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString("utf8");
}

/** For tests that switch keys. */
export function resetSecretBoxCache(): void {
  cached = undefined;
}
