import { domainToASCII } from "node:url";
import { z } from "zod";

/** RFC 1035: a name is at most 253 characters written out, each label 1 to 63. */
export const MAX_DOMAIN_LENGTH = 253;
export const MAX_LABEL_LENGTH = 63;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Why `input` cannot be a workspace's mail domain, or null when it can. `input` is already
 * ASCII (punycode) and lower-case. The deployment's own AGENTDRAFT_MAIL_DOMAIN, and names under
 * it, are never a workspace's: they are the shared domain every workspace's default inboxes use.
 */
export function domainNameProblem(name: string, deploymentDomain: string): string | null {
  if (name.length < 3 || name.length > MAX_DOMAIN_LENGTH) return `a domain name is 3 to ${MAX_DOMAIN_LENGTH} characters`;
  if (name.startsWith("[") || name.includes(":")) return "an IP address literal is not a domain";
  const labels = name.split(".");
  if (labels.length < 2) return "a domain has at least two labels (support.acme.com, acme.com)";
  if (labels.length > 127) return "too many labels";
  for (const label of labels) {
    if (label.length === 0) return "empty label (two dots in a row, or a leading dot)";
    if (label.length > MAX_LABEL_LENGTH) return `a label is at most ${MAX_LABEL_LENGTH} characters`;
    if (!LABEL.test(label)) return "labels are letters, digits and hyphens, not starting or ending with a hyphen";
  }
  // The top-level label is never all digits: 192.168.0.1 is an IPv4 address, not a domain.
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return "an IP address literal is not a domain";
  if (name === deploymentDomain || name.endsWith(`.${deploymentDomain}`)) return `${deploymentDomain} is this deployment's own mail domain (AGENTDRAFT_MAIL_DOMAIN)`;
  return null;
}

/** Lower-case, trailing dot dropped, international names in punycode; "" when not a host name at all. */
export function normaliseDomainName(raw: string): string {
  const trimmed = raw.trim().toLowerCase().replace(/\.$/, "");
  if (!trimmed || /[\s/@?#\\]/.test(trimmed)) return trimmed;
  if (/^[\x21-\x7e]+$/.test(trimmed)) return trimmed;
  return domainToASCII(trimmed) || trimmed;
}

/** The `name` field of POST /v1/domains (the deployment's own domain is refused where the config is known). */
export const domainNameField = z
  .string()
  .max(MAX_DOMAIN_LENGTH + 1, `at most ${MAX_DOMAIN_LENGTH} characters`)
  .transform(normaliseDomainName)
  .describe("the domain, e.g. support.acme.com (international names are stored in punycode)");
