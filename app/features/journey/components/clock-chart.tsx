import { Scatter, ScatterChart, Tooltip, XAxis, YAxis, ZAxis } from "recharts";
import { formatHour, WEEKDAYS } from "./format";

interface Cell {
  hour: number;
  weekday: number;
  plays: number;
}

/** A square for one hour × weekday, darker with more plays (opacity of the primary colour). */
function Square(props: { cx?: number; cy?: number; payload?: Cell; max: number }) {
  const { cx = 0, cy = 0, payload, max } = props;
  const plays = payload?.plays ?? 0;
  const opacity = plays === 0 ? 0.06 : 0.2 + 0.8 * (plays / Math.max(1, max));
  return (
    <rect
      x={cx - 7}
      y={cy - 7}
      width={14}
      height={14}
      rx={2}
      fill="var(--primary)"
      fillOpacity={opacity}
    />
  );
}

/**
 * The listening clock: hours across, weekdays down. Loaded lazily in the browser only; the table
 * next to it has the same numbers.
 */
export default function ClockChart({ clock }: { clock: number[][] }) {
  const cells: Cell[] = clock.flatMap((hours, weekday) =>
    hours.map((plays, hour) => ({ hour, weekday, plays })),
  );
  const max = Math.max(0, ...cells.map((c) => c.plays));
  return (
    <div aria-hidden="true" className="text-muted-foreground">
      <ScatterChart
        responsive
        width="100%"
        height={230}
        margin={{ top: 8, right: 8, bottom: 0, left: -8 }}
        accessibilityLayer={false}
      >
        <XAxis
          type="number"
          dataKey="hour"
          domain={[-0.5, 23.5]}
          ticks={[0, 3, 6, 9, 12, 15, 18, 21]}
          tickFormatter={(h) => formatHour(Number(h))}
          tick={{ fill: "currentColor", fontSize: 12 }}
          stroke="currentColor"
        />
        <YAxis
          type="number"
          dataKey="weekday"
          domain={[-0.5, 6.5]}
          ticks={[0, 1, 2, 3, 4, 5, 6]}
          reversed
          tickFormatter={(d) => WEEKDAYS[Number(d)] ?? ""}
          tick={{ fill: "currentColor", fontSize: 12 }}
          stroke="currentColor"
          width={48}
        />
        <ZAxis type="number" dataKey="plays" name="Plays" />
        <Tooltip
          cursor={false}
          formatter={(value, name) => [String(value), String(name)]}
          labelFormatter={() => ""}
          contentStyle={{
            background: "var(--background)",
            border: "1px solid var(--border)",
            borderRadius: 8,
            color: "var(--foreground)",
          }}
        />
        <Scatter
          data={cells}
          isAnimationActive={false}
          shape={(props: unknown) => (
            <Square {...(props as { cx?: number; cy?: number; payload?: Cell })} max={max} />
          )}
        />
      </ScatterChart>
    </div>
  );
}
