import { GuidePage, guideMetadata } from "../guide-page";

export const metadata = guideMetadata("/docs/mail");
export const dynamic = "force-static";

// GET /docs/mail — inboxes and email: mail in and out, sanitising, hostile mail (docs/mail.md)
export default function MailPage() {
  return <GuidePage file="mail.md" />;
}
