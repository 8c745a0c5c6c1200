import { viewerTimeZone } from "@/lib/domains/auth/viewer-time-zone";
import { zoneName, zonedDateTime } from "@/lib/platform/time/zoned";

/** An instant in the viewer's time zone (their setting, else their browser's, else UTC). Server-only. */
export async function Time({ at, zone }: { at: Date | null; zone?: string }) {
  if (!at) return <span className="text-slate-500">never</span>;
  const tz = zone ?? (await viewerTimeZone()).zone;
  return (
    <time dateTime={at.toISOString()} title={`${at.toISOString()} (UTC)`} className="whitespace-nowrap">
      {zonedDateTime(at, tz)} <span className="text-slate-500">{zoneName(at, tz)}</span>
    </time>
  );
}
