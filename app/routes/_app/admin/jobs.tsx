import { data, Link, useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { type ActionResult, announceAdminAction } from "~/features/admin/components/action-toast";
import { LoadError } from "~/features/admin/components/load-error";
import { Pager } from "~/features/admin/components/pager";
import { ScrollRegion } from "~/features/admin/components/scroll-region";
import { LOAD_ERRORS } from "~/features/admin/errors";
import { formatDateTime } from "~/features/admin/format";
import { JOB_KIND_LABELS } from "~/features/admin/job-kinds";
import {
  discardJobAsAdmin,
  listJobsForAdmin,
  parseJobStatus,
  retryJobAsAdmin,
} from "~/features/admin/jobs.server";
import { parsePageParam } from "~/features/admin/paging";
import { loadAdminData, runAdminAction } from "~/features/admin/route-helpers.server";
import { jobActionSchema } from "~/features/admin/schemas";
import { requireAdmin, requireAdminApi } from "~/features/auth/guards.server";
import { invalidForm, withMessage } from "~/lib/forms";
import { cn } from "~/lib/utils";
import type { Route } from "./+types/jobs";

export const meta: Route.MetaFunction = () => [{ title: "Background jobs · Admin · Soundtrail" }];

const STATUS_LABELS = {
  queued: "Waiting",
  running: "Running",
  done: "Done",
  dead: "Failed for good",
} as const;
type Status = keyof typeof STATUS_LABELS;

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireAdmin(context, request);
  const params = new URL(request.url).searchParams;
  const status = parseJobStatus(params.get("status"));
  const kind = params.get("kind") ?? undefined;
  const page = parsePageParam(params.get("page"));
  const result = await loadAdminData(request, LOAD_ERRORS.jobs, () =>
    listJobsForAdmin({ actorId: viewer.id, kind, status, page }),
  );
  return { jobs: result.data, error: result.error, status: status ?? null, kind: kind ?? null };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireAdminApi(context);
  const parsed = jobActionSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return data(withMessage(invalidForm(parsed.error)), { status: 400 });
  const { intent, jobId } = parsed.data;
  return runAdminAction(async () => {
    if (intent === "retry") {
      await retryJobAsAdmin({ actorId: viewer.id, jobId });
      return `Job ${jobId} is queued again.`;
    }
    await discardJobAsAdmin({ actorId: viewer.id, jobId });
    return `Job ${jobId} was discarded.`;
  });
}

/** Shows the outcome as a toast, whatever happened to the button meanwhile. */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return announceAdminAction(serverAction);
}

const kindLabel = (kind: string) => JOB_KIND_LABELS[kind] ?? kind;

function JobButton({
  jobId,
  intent,
  label,
}: {
  jobId: number;
  intent: "retry" | "discard";
  label: string;
}) {
  const fetcher = useFetcher<ActionResult>();
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="jobId" value={jobId} />
      <Button
        type="submit"
        size="sm"
        variant={intent === "retry" ? "secondary" : "ghost"}
        disabled={fetcher.state !== "idle"}
        aria-label={`${label} job ${jobId}`}
      >
        <Icon name={intent === "retry" ? "rotate-cw" : "trash"} className="size-4" />
        {label}
      </Button>
    </fetcher.Form>
  );
}

/** "?kind=…&status=…" with one of them changed (the page starts over). */
function filterHref(current: { kind: string | null; status: Status | null }, change: object) {
  const next = { ...current, ...change } as { kind: string | null; status: Status | null };
  const params = new URLSearchParams();
  if (next.kind) params.set("kind", next.kind);
  if (next.status) params.set("status", next.status);
  const query = params.toString();
  return query ? `?${query}` : "?";
}

export default function AdminJobs({ loaderData }: Route.ComponentProps) {
  const { jobs, error, status, kind } = loaderData;
  if (!jobs) return <LoadError message={error ?? LOAD_ERRORS.jobs} />;
  const tab = (isActive: boolean) =>
    cn(
      "rounded-md px-3 py-1.5 text-sm font-medium",
      isActive ? "bg-accent text-accent-foreground" : "text-muted-foreground hover:bg-muted",
    );
  const current = { kind, status };
  return (
    <section aria-labelledby="jobs-heading" className="flex flex-col gap-6">
      <div>
        <h2 id="jobs-heading" className="mb-1 text-lg font-semibold">
          Background jobs
        </h2>
        <p className="mb-3 text-sm text-muted-foreground">
          E-mails, fan-outs, link previews, imports, exports and journey aggregates, on every
          instance. A job that failed for good can be queued again; a waiting or failed one can be
          discarded.
        </p>
        <ScrollRegion label="Jobs by kind">
          <table className="w-full min-w-[40rem] text-left text-sm">
            <caption className="sr-only">How many jobs of each kind are in each state</caption>
            <thead className="bg-card text-muted-foreground">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  Kind
                </th>
                {(Object.keys(STATUS_LABELS) as Status[]).map((s) => (
                  <th key={s} scope="col" className="px-3 py-2 text-right font-medium">
                    {STATUS_LABELS[s]}
                  </th>
                ))}
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  Oldest waiting
                </th>
              </tr>
            </thead>
            <tbody>
              {jobs.kinds.length === 0 ? (
                <tr>
                  <td colSpan={6} className="px-3 py-6 text-center text-muted-foreground">
                    No background jobs yet.
                  </td>
                </tr>
              ) : null}
              {jobs.kinds.map((row) => (
                <tr key={row.kind} className="border-t border-border">
                  <th scope="row" className="px-3 py-2 text-left font-medium">
                    <Link
                      to={filterHref(current, { kind: row.kind })}
                      className="underline-offset-2 hover:underline"
                    >
                      {kindLabel(row.kind)}
                    </Link>
                  </th>
                  {(Object.keys(STATUS_LABELS) as Status[]).map((s) => (
                    <td key={s} className="px-3 py-2 text-right tabular-nums">
                      {row.counts[s]}
                    </td>
                  ))}
                  <td className="px-3 py-2 text-right tabular-nums">
                    {row.oldestWaitSeconds > 0 ? `${Math.round(row.oldestWaitSeconds)} s` : "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </div>

      <div>
        <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
          <h3 className="text-base font-semibold">
            {kind ? kindLabel(kind) : "All kinds"}{" "}
            <span className="font-normal text-muted-foreground">({jobs.total})</span>
            {kind ? (
              <Link
                to={filterHref(current, { kind: null })}
                className="ml-2 text-sm font-normal text-muted-foreground underline underline-offset-2"
              >
                Show all kinds
              </Link>
            ) : null}
          </h3>
          <nav aria-label="Job state" className="flex flex-wrap gap-1">
            <Link
              to={filterHref(current, { status: null })}
              className={tab(status === null)}
              aria-current={status === null ? "page" : undefined}
            >
              Any state
            </Link>
            {(Object.keys(STATUS_LABELS) as Status[]).map((s) => (
              <Link
                key={s}
                to={filterHref(current, { status: s })}
                className={tab(status === s)}
                aria-current={status === s ? "page" : undefined}
              >
                {STATUS_LABELS[s]}
              </Link>
            ))}
          </nav>
        </div>
        <ScrollRegion label="Jobs table">
          <table className="w-full min-w-[48rem] text-left text-sm">
            <thead className="bg-card text-muted-foreground">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  Job
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  State
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Attempts
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  When
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  Last error
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {jobs.items.length === 0 ? (
                <tr>
                  <td colSpan={6} className="px-3 py-6 text-center text-muted-foreground">
                    No jobs here.
                  </td>
                </tr>
              ) : null}
              {jobs.items.map((job) => (
                <tr key={job.id} className="border-t border-border align-top">
                  <td className="px-3 py-2">
                    <span className="font-medium">{kindLabel(job.kind)}</span>{" "}
                    <span className="font-mono text-xs text-muted-foreground">#{job.id}</span>
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap">{STATUS_LABELS[job.status]}</td>
                  <td className="px-3 py-2 tabular-nums">
                    {job.attempts} of {job.maxAttempts}
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap">
                    <time dateTime={new Date(job.finishedAt ?? job.runAt).toISOString()}>
                      {formatDateTime(job.finishedAt ?? job.runAt)}
                    </time>
                  </td>
                  <td className="max-w-md px-3 py-2 break-words text-muted-foreground">
                    {job.lastError ?? "—"}
                  </td>
                  <td className="px-3 py-2">
                    <div className="flex justify-end gap-1">
                      {job.status === "dead" ? (
                        <JobButton jobId={job.id} intent="retry" label="Retry" />
                      ) : null}
                      {job.status === "dead" || job.status === "queued" ? (
                        <JobButton jobId={job.id} intent="discard" label="Discard" />
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
        <Pager info={jobs} label="Jobs" />
      </div>
    </section>
  );
}
