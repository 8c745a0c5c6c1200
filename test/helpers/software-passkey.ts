// A software passkey (ES256): registers itself for a user as Auth.js stores passkeys, and makes
// real WebAuthn assertions (authenticator data, client data, ECDSA signature) that
// @simplewebauthn/server verifies, the way a browser's authenticator would.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

export type SoftwarePasskey = {
  /** As stored in `authenticators.credential_id` (standard base64, as Auth.js stores it). */
  credentialId: string;
  /** Registers it to the user (an `authenticators` and an `auth_accounts` row). */
  register(userId: string): Promise<void>;
  /** An assertion over `challenge` (base64url) for `origin`; `userVerified: false` clears the UV flag. */
  assert(opts: { challenge: string; origin: string; userVerified?: boolean }): AssertionJSON;
};

export type AssertionJSON = {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; authenticatorData: string; signature: string };
  clientExtensionResults: Record<string, never>;
};

const b64url = (b: Buffer) => b.toString("base64url");

/** The COSE_Key (CBOR map) of a P-256 public key: {1: 2, 3: -7, -1: 1, -2: x, -3: y}. */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: "jwk" });
  const x = Buffer.from(jwk.x!, "base64url");
  const y = Buffer.from(jwk.y!, "base64url");
  return Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
}

export function softwarePasskey(): SoftwarePasskey {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const rawId = randomBytes(16);
  const credentialId = rawId.toString("base64");
  let counter = 0;
  return {
    credentialId,
    async register(userId) {
      const { getDb } = await import("../../db/client");
      const { authAccounts, authenticators } = await import("../../db/schema");
      const db = await getDb();
      await db.insert(authAccounts).values({ userId, type: "webauthn", provider: "passkey", providerAccountId: credentialId });
      await db.insert(authenticators).values({
        credentialID: credentialId,
        userId,
        providerAccountId: credentialId,
        credentialPublicKey: coseKey(publicKey).toString("base64"),
        counter: 0,
        credentialDeviceType: "singleDevice",
        credentialBackedUp: false,
        transports: "internal",
      });
    },
    assert({ challenge, origin, userVerified = true }) {
      counter += 1;
      const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin, crossOrigin: false }));
      const rpIdHash = createHash("sha256").update(new URL(origin).hostname).digest();
      const flags = 0x01 | (userVerified ? 0x04 : 0); // UP, and UV when the person was verified
      const count = Buffer.alloc(4);
      count.writeUInt32BE(counter);
      const authenticatorData = Buffer.concat([rpIdHash, Buffer.from([flags]), count]);
      const signature = sign("sha256", Buffer.concat([authenticatorData, createHash("sha256").update(clientDataJSON).digest()]), privateKey);
      return {
        id: b64url(rawId),
        rawId: b64url(rawId),
        type: "public-key",
        response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authenticatorData), signature: b64url(signature) },
        clientExtensionResults: {},
      };
    },
  };
}
