import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import { formatDay } from "../format";
import type { DailyCount } from "../statistics.server";

/**
 * A bar chart of one series per day. Loaded lazily (recharts is large), in the browser only;
 * the table next to it carries the same numbers for screen readers and before it loads.
 */
export default function DailyChart({
  data,
  series,
  label,
}: {
  data: DailyCount[];
  series: "accounts" | "posts";
  label: string;
}) {
  return (
    <div
      aria-hidden="true"
      className="text-muted-foreground [&_.recharts-bar-rectangle_path]:fill-primary [&_.recharts-cartesian-grid_line]:stroke-border"
    >
      <BarChart
        responsive
        width="100%"
        height={220}
        data={data}
        margin={{ top: 8, right: 8, bottom: 0, left: -16 }}
        accessibilityLayer={false}
        title={label}
      >
        <CartesianGrid vertical={false} />
        <XAxis
          dataKey="day"
          tickFormatter={formatDay}
          tick={{ fill: "currentColor", fontSize: 12 }}
          stroke="currentColor"
          minTickGap={24}
        />
        <YAxis
          allowDecimals={false}
          tick={{ fill: "currentColor", fontSize: 12 }}
          stroke="currentColor"
        />
        <Tooltip
          cursor={{ fillOpacity: 0.1 }}
          labelFormatter={(day) => formatDay(String(day))}
          contentStyle={{
            background: "var(--background)",
            border: "1px solid var(--border)",
            borderRadius: 8,
            color: "var(--foreground)",
          }}
        />
        <Bar dataKey={series} name={label} isAnimationActive={false} radius={[3, 3, 0, 0]} />
      </BarChart>
    </div>
  );
}
