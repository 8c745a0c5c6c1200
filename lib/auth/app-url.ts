import { headers } from "next/headers";
import { env } from "../config/env";

/** The web app's origin for links in mail: AUTH_URL when set, else the request's own host. */
export async function appUrl(): Promise<string> {
  const configured = env().AUTH_URL;
  if (configured) return new URL(configured).origin;
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:3000";
  const proto = h.get("x-forwarded-proto") ?? (host.startsWith("localhost") || host.startsWith("127.") ? "http" : "https");
  return `${proto}://${host}`;
}
