import { lazy, type ReactNode, Suspense, useEffect, useId, useState } from "react";
import { Form, Link } from "react-router";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Cover } from "~/features/artwork";
import { cn } from "~/lib/utils";
import type { JourneyView as JourneyViewData } from "../journey-page.server";
import { JOURNEY_PERIODS, PERIOD_LABELS, periodSearch } from "../period-labels";
import type { RankedArtist, RankedItem } from "../stats.server";
import { type ChapterResult, Chapters } from "./chapters";
import {
  formatBucket,
  formatCount,
  formatDay,
  formatHour,
  formatListening,
  WEEKDAY_NAMES,
} from "./format";
import { JourneyEmpty, JourneyHiddenNotice, TasteMatchPanel } from "./journey-parts";
import { RecapCardPanel, type RecapResult } from "./recap-card";

const OverTimeChart = lazy(() => import("./over-time-chart"));
const ClockChart = lazy(() => import("./clock-chart"));

function useIsClient() {
  const [isClient, setIsClient] = useState(false);
  useEffect(() => setIsClient(true), []);
  return isClient;
}

/** Week, month, year, all time as links, and a from/to form: the period lives in the URL. */
function PeriodPicker({
  basePath,
  period,
}: {
  basePath: string;
  period: { period: string; from: string; to: string; error: string | null };
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-3">
      <nav aria-label="Period" className="flex flex-wrap gap-2">
        {JOURNEY_PERIODS.filter((p) => p !== "custom").map((p) => {
          const isCurrent = period.period === p;
          return (
            <Link
              key={p}
              to={`${basePath}${periodSearch({ period: p, from: "", to: "" })}`}
              aria-current={isCurrent ? "page" : undefined}
              preventScrollReset
              className={cn(
                "rounded-full border px-3 py-1.5 text-sm font-medium",
                isCurrent
                  ? "border-primary bg-primary text-primary-foreground"
                  : "border-border hover:bg-muted",
              )}
            >
              {PERIOD_LABELS[p]}
            </Link>
          );
        })}
      </nav>
      <Form
        method="get"
        action={basePath}
        preventScrollReset
        className="flex flex-wrap items-end gap-3"
        aria-label="Custom range"
      >
        <input type="hidden" name="period" value="custom" />
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-from`} className="text-sm font-medium">
            From
          </label>
          <input
            id={`${id}-from`}
            type="date"
            name="from"
            required
            defaultValue={period.from}
            aria-describedby={period.error ? `${id}-error` : undefined}
            className="h-10 rounded-lg border border-border bg-background px-3 text-foreground"
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-to`} className="text-sm font-medium">
            To
          </label>
          <input
            id={`${id}-to`}
            type="date"
            name="to"
            required
            defaultValue={period.to}
            aria-describedby={period.error ? `${id}-error` : undefined}
            className="h-10 rounded-lg border border-border bg-background px-3 text-foreground"
          />
        </div>
        <Button type="submit" variant={period.period === "custom" ? "primary" : "secondary"}>
          Show range
        </Button>
      </Form>
      {period.error ? (
        <p id={`${id}-error`} role="alert" className="text-sm text-danger">
          {period.error} Showing the last 30 days instead.
        </p>
      ) : null}
    </div>
  );
}

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="rounded-lg border border-border p-3">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="text-xl font-bold">{value}</dd>
      {hint ? <dd className="text-xs text-muted-foreground">{hint}</dd> : null}
    </div>
  );
}

function TopList({
  title,
  items,
  empty,
}: {
  title: string;
  items: (RankedArtist | RankedItem)[];
  empty: string;
}) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="min-w-0">
      <h2 id={id} className="mb-2 font-semibold">
        {title}
      </h2>
      {items.length === 0 ? (
        <p className="text-sm text-muted-foreground">{empty}</p>
      ) : (
        <ol aria-label={title} className="flex flex-col gap-1 text-sm">
          {items.map((item, i) => (
            <li key={item.key} className="flex items-center gap-2">
              <span className="w-5 shrink-0 text-right text-muted-foreground tabular-nums">
                {i + 1}.
              </span>
              {"artistName" in item ? (
                <Cover
                  artist={item.artistName}
                  title={item.name}
                  size={32}
                  className="size-8 shrink-0 rounded"
                />
              ) : (
                <Cover artist={item.name} size={32} className="size-8 shrink-0 rounded-full" />
              )}
              <span className="min-w-0 flex-1 break-words">
                <span className="font-medium">{item.name}</span>
                {"artistName" in item ? (
                  <span className="text-muted-foreground"> · {item.artistName}</span>
                ) : null}
              </span>
              <span className="shrink-0 text-muted-foreground tabular-nums">
                {formatCount(item.plays)} {item.plays === 1 ? "play" : "plays"}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function ChartCard({
  title,
  description,
  chart,
  table,
}: {
  title: string;
  description: ReactNode;
  chart: ReactNode;
  table: ReactNode;
}) {
  const id = useId();
  const isClient = useIsClient();
  return (
    <section aria-labelledby={id} className="min-w-0">
      <h2 id={id} className="font-semibold">
        {title}
      </h2>
      <p className="mb-3 text-sm text-muted-foreground">{description}</p>
      <div className="min-h-[220px]">
        {isClient ? <Suspense fallback={null}>{chart}</Suspense> : null}
      </div>
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer font-medium text-foreground">Show as a table</summary>
        <section
          aria-label={`${title} table`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
          tabIndex={0}
          className="mt-2 max-h-72 overflow-auto rounded-lg border border-border focus-visible:outline-2 focus-visible:outline-ring"
        >
          {table}
        </section>
      </details>
    </section>
  );
}

const th = "px-3 py-2 font-medium";
const td = "px-3 py-1.5 tabular-nums";

/** The full journey of a person as the viewer may see it (or why not, or how to start one). */
export function JourneyView({
  view,
  basePath,
  isSignedIn,
  chapterResult,
  recapResult,
}: {
  view: JourneyViewData;
  basePath: string;
  isSignedIn: boolean;
  chapterResult?: ChapterResult;
  recapResult?: RecapResult;
}) {
  const name = view.owner.displayName;
  if (view.state === "hidden") {
    return <JourneyHiddenNotice name={name} audience={view.audience} isSignedIn={isSignedIn} />;
  }
  if (view.state === "empty") return <JourneyEmpty name={name} isOwner={view.isOwner} />;
  const { stats, period, posts, taste } = view;
  const postsByBucket = new Map<string, number>();
  const bucketOf = (day: string) => {
    let found = stats.overTime.points[0]?.start ?? day;
    for (const p of stats.overTime.points) if (p.start <= day) found = p.start;
    return found;
  };
  for (const d of posts.days) {
    const b = bucketOf(d.day);
    postsByBucket.set(b, (postsByBucket.get(b) ?? 0) + d.posts);
  }
  const overTime = stats.overTime.points.map((p) => ({
    ...p,
    posts: postsByBucket.get(p.start) ?? 0,
  }));
  const bucketWord = { day: "day", week: "week", month: "month" }[stats.overTime.bucket];
  const range = `${stats.start ? formatDay(stats.start) : "the start"} to ${formatDay(
    new Date(Date.parse(`${stats.end}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10),
  )} (UTC)`;
  const { longest, current } = stats.streaks;
  return (
    <div className="flex flex-col gap-6">
      <PeriodPicker basePath={basePath} period={period} />
      <p className="text-sm text-muted-foreground">
        {period.label}: {range}.
      </p>
      {taste ? <TasteMatchPanel taste={taste} name={name} level={2} /> : null}
      {stats.totals.plays === 0 ? (
        <p role="status" className="rounded-lg border border-border p-4 text-sm">
          No plays in this period. Choose another one above.
        </p>
      ) : (
        <>
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3">
            <Stat label="Plays" value={formatCount(stats.totals.plays)} />
            <Stat
              label="Listening time"
              value={`${stats.totals.estimatedPlays > 0 ? "≈ " : ""}${formatListening(stats.totals.listeningMs)}`}
              hint={
                stats.totals.estimatedPlays > 0
                  ? `An estimate: ${formatCount(stats.totals.estimatedPlays)} ${stats.totals.estimatedPlays === 1 ? "play has" : "plays have"} no length, counted as 3.5 min each.`
                  : undefined
              }
            />
            <Stat label="Artists" value={formatCount(stats.totals.artists)} />
            <Stat
              label="Discoveries"
              value={formatCount(stats.discoveries.count)}
              hint="Artists first played in this period"
            />
            <Stat
              label="Longest streak"
              value={longest ? `${longest.days} ${longest.days === 1 ? "day" : "days"}` : "—"}
              hint={longest ? `${formatDay(longest.from)} to ${formatDay(longest.to)}` : undefined}
            />
            <Stat
              label="Current streak"
              value={current ? `${current.days} ${current.days === 1 ? "day" : "days"}` : "None"}
              hint={current ? `Since ${formatDay(current.from)}` : undefined}
            />
          </dl>
          <p className="text-xs text-muted-foreground">
            A streak is a run of days with plays; one day without plays between two days with plays
            does not break it, two in a row do. It counts every day from its first play to its last.
          </p>
          <div className="grid gap-6 sm:grid-cols-2">
            <TopList title="Top artists" items={stats.topArtists} empty="No artists." />
            <TopList
              title="Top albums"
              items={stats.topAlbums}
              empty="No album names in these plays."
            />
            <TopList title="Top tracks" items={stats.topTracks} empty="No tracks." />
          </div>
          <ChartCard
            title="Plays over time"
            description={`Plays per ${bucketWord}${posts.days.length > 0 ? `; a dot marks a ${bucketWord} with posts` : ""}.`}
            chart={<OverTimeChart data={overTime} bucket={stats.overTime.bucket} />}
            table={
              <table className="w-full text-left text-sm">
                <caption className="sr-only">Plays and posts per {bucketWord}</caption>
                <thead className="sticky top-0 bg-card">
                  <tr>
                    <th scope="col" className={th}>
                      {bucketWord === "day" ? "Day" : bucketWord === "week" ? "Week" : "Month"}
                    </th>
                    <th scope="col" className={`${th} text-right`}>
                      Plays
                    </th>
                    <th scope="col" className={`${th} text-right`}>
                      Posts
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {overTime.map((p) => (
                    <tr key={p.start} className="border-t border-border">
                      <td className={td}>{formatBucket(p.start, stats.overTime.bucket)}</td>
                      <td className={`${td} text-right`}>{formatCount(p.plays)}</td>
                      <td className={`${td} text-right`}>{p.posts}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            }
          />
          <ChartCard
            title="Listening clock"
            description="Plays by hour (UTC) and weekday; darker squares mean more plays."
            chart={<ClockChart clock={stats.clock} />}
            table={
              <table className="w-full text-left text-xs">
                <caption className="sr-only">Plays by weekday and hour (UTC)</caption>
                <thead className="sticky top-0 bg-card">
                  <tr>
                    <th scope="col" className="px-2 py-1 font-medium">
                      Day
                    </th>
                    {Array.from({ length: 24 }, (_, h) => (
                      <th
                        key={formatHour(h)}
                        scope="col"
                        className="px-2 py-1 text-right font-medium"
                      >
                        {formatHour(h)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {stats.clock.map((hours, weekday) => (
                    <tr key={WEEKDAY_NAMES[weekday]} className="border-t border-border">
                      <th scope="row" className="px-2 py-1 text-left font-medium">
                        {WEEKDAY_NAMES[weekday]}
                      </th>
                      {hours.map((n, h) => (
                        <td key={formatHour(h)} className="px-2 py-1 text-right tabular-nums">
                          {n}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            }
          />
          <section aria-labelledby="discoveries-heading">
            <h2 id="discoveries-heading" className="mb-2 font-semibold">
              Discoveries
            </h2>
            {stats.discoveries.count === 0 ? (
              <p className="text-sm text-muted-foreground">
                No new artists in this period: every artist played was played before.
              </p>
            ) : (
              <>
                <p className="mb-2 text-sm text-muted-foreground">
                  {formatCount(stats.discoveries.count)}{" "}
                  {stats.discoveries.count === 1 ? "artist" : "artists"} first played in this period
                  {stats.discoveries.count > stats.discoveries.artists.length
                    ? ", the latest:"
                    : ":"}
                </p>
                <ul className="flex flex-wrap gap-2">
                  {stats.discoveries.artists.map((a) => (
                    <li
                      key={a.name}
                      className="rounded-full border border-border px-3 py-1 text-sm break-all"
                    >
                      {a.name}{" "}
                      <span className="text-muted-foreground">· {formatDay(a.firstPlayedOn)}</span>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </section>
        </>
      )}
      {stats.totals.plays > 0 || view.chapters.length > 0 ? (
        <RecapCardPanel
          basePath={basePath}
          ownerName={name}
          isOwner={view.isOwner}
          enabled={view.recaps.enabled}
          audience={view.recaps.audience}
          period={period}
          chapters={view.chapters}
          result={recapResult}
        />
      ) : null}
      {view.chapters.length > 0 ? (
        <Chapters chapters={view.chapters} isOwner={view.isOwner} result={chapterResult} />
      ) : null}
      <section aria-labelledby="journey-posts-heading">
        <h2 id="journey-posts-heading" className="mb-2 font-semibold">
          Posts in this period
        </h2>
        {posts.posts.length === 0 ? (
          <p className="text-sm text-muted-foreground">No posts you can see in this period.</p>
        ) : (
          <ul className="flex flex-col gap-1 text-sm">
            {posts.posts.map((p) => (
              <li key={p.id}>
                <Link to={`/post/${p.id}`} className="font-medium text-primary hover:underline">
                  {p.title}
                </Link>
                {p.artist ? <span className="text-muted-foreground"> · {p.artist}</span> : null}
                <span className="text-muted-foreground">
                  {" "}
                  · {formatDay(p.createdAt.slice(0, 10))}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

/** A page frame for the journey: heading, back link, the view in a card. */
export function JourneyPage({
  view,
  basePath,
  profilePath,
  isSignedIn,
  chapterResult,
  recapResult,
  listens,
}: {
  view: JourneyViewData;
  basePath: string;
  profilePath: string;
  isSignedIn: boolean;
  chapterResult?: ChapterResult;
  recapResult?: RecapResult;
  /** Recent listens with "now playing" (nothing for a reader the journey leaves out). */
  listens?: ReactNode;
}) {
  const isOwner = view.state !== "hidden" && view.isOwner;
  return (
    <div className="flex flex-col gap-4">
      <p>
        <Link
          to={profilePath}
          className="text-sm font-medium text-muted-foreground hover:text-foreground"
        >
          ← {view.owner.displayName}
        </Link>
      </p>
      <h1 className="text-2xl font-bold break-words">
        {isOwner ? "Your journey" : `${view.owner.displayName}'s journey`}
      </h1>
      <Card className="p-4 sm:p-6">
        <JourneyView
          view={view}
          basePath={basePath}
          isSignedIn={isSignedIn}
          chapterResult={chapterResult}
          recapResult={recapResult}
        />
      </Card>
      {listens}
      {isOwner ? (
        <p className="text-sm text-muted-foreground">
          Who sees it and which artists stay hidden:{" "}
          <Link to="/settings/privacy#journey" className="font-medium text-primary hover:underline">
            Settings › Privacy
          </Link>
          .
        </p>
      ) : null}
    </div>
  );
}
