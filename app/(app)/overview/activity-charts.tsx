import type { DailyActivity } from "@/lib/domains/overview/daily-activity";
import { Card } from "../_components/ui";

type Series = { label: string; color: string; value: (d: DailyActivity) => number | null; unit?: string };

const W = 600;
const H = 120;
const PAD = 24;

/** One chart: a bar per series per day, drawn on the server as SVG, with the numbers as a table for screen readers. */
function DailyBars({ id, title, days, series }: { id: string; title: string; days: DailyActivity[]; series: Series[] }) {
  const max = Math.max(1, ...days.flatMap((d) => series.map((s) => s.value(d) ?? 0)));
  const slot = (W - PAD) / days.length;
  const bar = Math.max(1, (slot - 2) / series.length);
  const totals = series.map((s) => `${s.label}: ${days.reduce((n, d) => n + (s.value(d) ?? 0), 0).toLocaleString("en")}${s.unit ?? ""}`);
  const summary = series.some((s) => s.unit) ? `Highest ${Math.round(max)}${series[0]!.unit ?? ""}.` : `Totals over ${days.length} days: ${totals.join(", ")}.`;
  return (
    <figure className="min-w-0" data-testid={`chart-${id}`}>
      <figcaption className="mb-1 flex flex-wrap items-baseline justify-between gap-2 text-sm">
        <span className="font-medium text-slate-900">{title}</span>
        <span className="flex flex-wrap gap-3 text-xs text-slate-700">
          {series.map((s) => (
            <span key={s.label}>
              <span className="mr-1 inline-block h-2.5 w-2.5 rounded-sm align-middle" style={{ background: s.color }} aria-hidden />
              {s.label}
            </span>
          ))}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H + 16}`} className="h-auto w-full" role="img" aria-labelledby={`${id}-title ${id}-desc`}>
        <title id={`${id}-title`}>{`${title}, per day for the last ${days.length} days`}</title>
        <desc id={`${id}-desc`}>{summary}</desc>
        <line x1={PAD} y1={H} x2={W} y2={H} stroke="#cbd5e1" />
        <text x={PAD - 4} y={10} textAnchor="end" fontSize="10" fill="#475569">
          {Math.round(max)}
        </text>
        <text x={PAD - 4} y={H} textAnchor="end" fontSize="10" fill="#475569">
          0
        </text>
        {days.map((d, i) =>
          series.map((s, j) => {
            const v = s.value(d) ?? 0;
            const h = (v / max) * (H - 12);
            return (
              <rect key={`${d.day}-${s.label}`} x={PAD + i * slot + 1 + j * bar} y={H - h} width={bar} height={h} fill={s.color}>
                <title>{`${d.day}: ${s.label} ${Math.round(v * 10) / 10}${s.unit ?? ""}`}</title>
              </rect>
            );
          }),
        )}
        {[0, Math.floor(days.length / 2), days.length - 1].map((i) => (
          <text key={i} x={i === days.length - 1 ? W : PAD + i * slot + slot / 2} y={H + 12} textAnchor={i === days.length - 1 ? "end" : "middle"} fontSize="10" fill="#475569">
            {days[i]!.day.slice(5)}
          </text>
        ))}
      </svg>
      <table className="sr-only">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            {series.map((s) => (
              <th key={s.label} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.day}>
              <th scope="row">{d.day}</th>
              {series.map((s) => (
                <td key={s.label}>{s.value(d) === null ? "—" : `${Math.round(s.value(d)! * 10) / 10}${s.unit ?? ""}`}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** The fleet over the last 30 days, in the viewer's days. */
export function ActivityCharts({ days, zone }: { days: DailyActivity[]; zone: string }) {
  return (
    <Card title={`The last ${days.length} days`} id="activity">
      <p className="mb-4 text-xs text-slate-600">Days in {zone}. Refused holds are answered 409 and not stored, so they are not counted here.</p>
      <div className="grid gap-6 lg:grid-cols-2">
        <DailyBars
          id="holds"
          title="Holds"
          days={days}
          series={[
            { label: "granted", color: "#4338ca", value: (d) => d.holdsGranted },
            { label: "preempted", color: "#d97706", value: (d) => d.holdsPreempted },
          ]}
        />
        <DailyBars
          id="approvals"
          title="Approvals"
          days={days}
          series={[
            { label: "asked", color: "#0f766e", value: (d) => d.approvalsAsked },
            { label: "decided", color: "#65a30d", value: (d) => d.approvalsDecided },
          ]}
        />
        <DailyBars
          id="decision-time"
          title="Median time to decision"
          days={days}
          series={[{ label: "minutes", color: "#7c3aed", value: (d) => (d.medianDecisionSeconds === null ? null : d.medianDecisionSeconds / 60), unit: " min" }]}
        />
        <DailyBars
          id="deliveries"
          title="Webhook deliveries"
          days={days}
          series={[
            { label: "ok", color: "#15803d", value: (d) => d.deliveriesOk },
            { label: "failed", color: "#b91c1c", value: (d) => d.deliveriesFailed },
          ]}
        />
        <DailyBars
          id="mail"
          title="Mail"
          days={days}
          series={[
            { label: "in", color: "#0369a1", value: (d) => d.mailIn },
            { label: "out", color: "#9333ea", value: (d) => d.mailOut },
          ]}
        />
      </div>
    </Card>
  );
}
