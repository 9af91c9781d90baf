import type { ReactNode } from "react";
import { Icon } from "~/components/ui/icon";
import { DailyChartCard } from "~/features/admin/components/daily-chart-card";
import { LoadError } from "~/features/admin/components/load-error";
import { LOAD_ERRORS } from "~/features/admin/errors";
import { formatCount } from "~/features/admin/format";
import { loadAdminData } from "~/features/admin/route-helpers.server";
import { getStatistics } from "~/features/admin/statistics.server";
import { requireAdmin } from "~/features/auth/guards.server";
import type { Route } from "./+types/statistics";

export const meta: Route.MetaFunction = () => [{ title: "Statistics · Admin · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireAdmin(context, request);
  const result = await loadAdminData(request, LOAD_ERRORS.statistics, () =>
    getStatistics({ actorId: viewer.id }),
  );
  return { statistics: result.data, error: result.error };
}

function StatCard({ label, value, icon }: { label: string; value: number; icon: ReactNode }) {
  return (
    <div className="rounded-xl border border-border bg-card p-4 shadow-sm">
      <dt className="flex items-center gap-2 text-sm text-muted-foreground">
        <span className="rounded-full bg-accent p-1.5 text-accent-foreground">{icon}</span>
        {label}
      </dt>
      <dd className="mt-2 text-2xl font-bold tabular-nums">{formatCount(value)}</dd>
    </div>
  );
}

export default function AdminStatistics({ loaderData }: Route.ComponentProps) {
  const { statistics, error } = loaderData;
  if (!statistics) return <LoadError message={error ?? LOAD_ERRORS.statistics} />;
  const icon = "size-4";
  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="totals-heading">
        <h2 id="totals-heading" className="sr-only">
          Totals
        </h2>
        <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
          <StatCard
            label="Profiles"
            value={statistics.totals.profiles}
            icon={<Icon name="users" className={icon} />}
          />
          <StatCard
            label="Posts"
            value={statistics.totals.posts}
            icon={<Icon name="eighth-notes" className={icon} />}
          />
          <StatCard
            label="Likes"
            value={statistics.totals.likes}
            icon={<Icon name="heart" className={icon} />}
          />
          <StatCard
            label="Comments"
            value={statistics.totals.comments}
            icon={<Icon name="message-square" className={icon} />}
          />
        </dl>
      </section>
      <section aria-labelledby="active-heading">
        <h2 id="active-heading" className="mb-1 text-lg font-semibold">
          Active people
        </h2>
        <p className="mb-3 text-sm text-muted-foreground">
          Everyone who posted, liked, commented or used Soundtrail signed in during the period.
        </p>
        <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
          <StatCard
            label="Last 7 days"
            value={statistics.active.last7Days}
            icon={<Icon name="activity" className={icon} />}
          />
          <StatCard
            label="Last 30 days"
            value={statistics.active.last30Days}
            icon={<Icon name="activity" className={icon} />}
          />
        </dl>
      </section>
      <div className="grid gap-6 lg:grid-cols-2">
        <DailyChartCard title="New accounts per day" data={statistics.daily} series="accounts" />
        <DailyChartCard title="New posts per day" data={statistics.daily} series="posts" />
      </div>
    </div>
  );
}
