import { lazy, Suspense, useEffect, useState } from "react";
import { Card } from "~/components/ui/card";
import { formatCount, formatDay } from "../format";
import type { DailyCount } from "../statistics.server";
import { ScrollRegion } from "./scroll-region";

const DailyChart = lazy(() => import("./daily-chart"));

/** One per-day series as a chart (in the browser) with the same numbers as a table. */
export function DailyChartCard({
  title,
  data,
  series,
}: {
  title: string;
  data: DailyCount[];
  series: "accounts" | "posts";
}) {
  const [isClient, setIsClient] = useState(false);
  useEffect(() => setIsClient(true), []);
  const total = data.reduce((sum, day) => sum + day[series], 0);
  const tableId = `${series}-per-day`;
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-lg font-semibold">{title}</h2>
      <p className="mb-4 text-sm text-muted-foreground">
        {formatCount(total)} in the last {data.length} days (UTC).
      </p>
      <div className="h-[220px]">
        {isClient ? (
          <Suspense fallback={null}>
            <DailyChart data={data} series={series} label={title} />
          </Suspense>
        ) : null}
      </div>
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer font-medium text-foreground">Show as a table</summary>
        <ScrollRegion label={`${title} table`} className="mt-2 max-h-64 overflow-y-auto rounded-lg">
          <table className="w-full text-left">
            <caption id={tableId} className="sr-only">
              {title}
            </caption>
            <thead className="sticky top-0 bg-card">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  Day
                </th>
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  Count
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((day) => (
                <tr key={day.day} className="border-t border-border">
                  <td className="px-3 py-1.5">{formatDay(day.day)}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{day[series]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </details>
    </Card>
  );
}
