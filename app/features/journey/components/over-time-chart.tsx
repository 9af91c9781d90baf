import { Bar, CartesianGrid, ComposedChart, Scatter, Tooltip, XAxis, YAxis } from "recharts";
import { formatBucket } from "./format";

export interface OverTimePoint {
  start: string;
  plays: number;
  posts: number;
}

/**
 * Plays per bucket as bars, with a dot on the bars of buckets holding posts. Loaded lazily in the
 * browser only (recharts is large); the table next to it has the same numbers.
 */
export default function OverTimeChart({
  data,
  bucket,
}: {
  data: OverTimePoint[];
  bucket: "day" | "week" | "month";
}) {
  const points = data.map((p) => ({ ...p, postMark: p.posts > 0 ? p.plays : null }));
  return (
    <div
      aria-hidden="true"
      className="text-muted-foreground [&_.recharts-bar-rectangle_path]:fill-primary [&_.recharts-cartesian-grid_line]:stroke-border [&_.recharts-scatter-symbol_path]:fill-foreground"
    >
      <ComposedChart
        responsive
        width="100%"
        height={220}
        data={points}
        margin={{ top: 12, right: 8, bottom: 0, left: -16 }}
        accessibilityLayer={false}
      >
        <CartesianGrid vertical={false} />
        <XAxis
          dataKey="start"
          tickFormatter={(v) => formatBucket(String(v), bucket)}
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
          labelFormatter={(v) => formatBucket(String(v), bucket)}
          contentStyle={{
            background: "var(--background)",
            border: "1px solid var(--border)",
            borderRadius: 8,
            color: "var(--foreground)",
          }}
        />
        <Bar dataKey="plays" name="Plays" isAnimationActive={false} radius={[3, 3, 0, 0]} />
        <Scatter dataKey="postMark" name="Posts on this day" isAnimationActive={false} />
      </ComposedChart>
    </div>
  );
}
