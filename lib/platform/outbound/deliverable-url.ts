import { isIP } from "node:net";
import { AppError } from "../errors";
import { env } from "../config/env";
import { isAllowlistedHost, isForbiddenAddress, parseAllowlist } from "./ssrf-guard";

const invalid = (field: string, message: string) => new AppError("validation_failed", `${field}: ${message}`, { errors: [{ field, message }] });

/**
 * https only, unless the operator allowlisted the host; an IP literal in a forbidden range is
 * refused at once. (Host names are checked again after DNS resolution at every delivery.)
 */
export function assertDeliverableUrl(value: string): string {
  const url = new URL(value);
  const allow = parseAllowlist(env().WEBHOOK_ALLOWED_HOSTS);
  const allowlisted = isAllowlistedHost(allow, url.hostname);
  if (url.protocol !== "https:" && !allowlisted) {
    throw invalid("url", "must be an https URL (plain http only for hosts on the operator's WEBHOOK_ALLOWED_HOSTS)");
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) && isForbiddenAddress(host) && !allowlisted) {
    throw invalid("url", "points to a private, loopback, link-local or reserved address");
  }
  if (!isIP(host) && (host === "localhost" || host.endsWith(".localhost")) && !allowlisted) {
    throw invalid("url", "points to localhost");
  }
  return url.toString();
}
