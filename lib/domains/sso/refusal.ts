/**
 * Why an SSO sign-in was refused; the web app turns the reason into a message on the sign-in page
 * (a code in the URL, never text an attacker could write there).
 */
export type SsoRefusalReason = "invalid_email" | "no_connection" | "rate_limited" | "unavailable" | "expired" | "failed" | "email_not_covered" | "not_member" | "unsolicited" | "replayed";

export class SsoRefusal extends Error {
  override name = "SsoRefusal";
  constructor(
    readonly reason: SsoRefusalReason,
    message: string,
  ) {
    super(message);
  }
}
