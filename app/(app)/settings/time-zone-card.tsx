import { viewerTimeZone } from "@/lib/domains/auth/viewer-time-zone";
import { allTimeZones } from "@/lib/platform/time/zoned";
import { ActionForm } from "../_components/action-form";
import { Card, Field, inputClass, secondaryButtonClass } from "../_components/ui";
import { setTimeZoneAction } from "./time-zone-actions";

/** The person's time zone for every time the web app shows. */
export async function TimeZoneCard() {
  const { zone, source, browser } = await viewerTimeZone();
  return (
    <Card title="Time zone" id="time-zone">
      <p className="mb-3 text-sm text-slate-700" data-testid="time-zone-now">
        Times are shown in <strong>{zone}</strong>
        {source === "setting" ? " (your setting)" : source === "browser" ? " (your browser's)" : " (no setting, and the browser did not say)"}.
      </p>
      <ActionForm action={setTimeZoneAction} submit="Save time zone" submitClassName={secondaryButtonClass} className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
        <Field label="Show times in" name="time_zone">
          <select id="time_zone" name="time_zone" defaultValue={source === "setting" ? zone : ""} className={inputClass}>
            <option value="">My browser&apos;s time zone{browser ? ` (${browser})` : ""}</option>
            {allTimeZones().map((tz) => (
              <option key={tz} value={tz}>
                {tz}
              </option>
            ))}
          </select>
        </Field>
      </ActionForm>
    </Card>
  );
}
