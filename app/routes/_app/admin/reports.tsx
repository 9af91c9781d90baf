import { data, Link, useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { type ActionResult, announceAdminAction } from "~/features/admin/components/action-toast";
import { LoadError } from "~/features/admin/components/load-error";
import { Pager } from "~/features/admin/components/pager";
import { ReasonDialog } from "~/features/admin/components/reason-dialog";
import { LOAD_ERRORS } from "~/features/admin/errors";
import { formatDateTime } from "~/features/admin/format";
import { parsePageParam } from "~/features/admin/paging";
import { deleteReportedContent, listReports, resolveReport } from "~/features/admin/reports.server";
import { loadAdminData, runAdminAction } from "~/features/admin/route-helpers.server";
import { reportActionSchema } from "~/features/admin/schemas";
import { requireAdmin, requireAdminApi } from "~/features/auth/guards.server";
import { invalidForm, withMessage } from "~/lib/forms";
import { cn } from "~/lib/utils";
import type { Route } from "./+types/reports";

export const meta: Route.MetaFunction = () => [{ title: "Reports · Admin · Soundtrail" }];

const REASON_LABELS: Record<string, string> = {
  spam: "Spam",
  harassment: "Harassment",
  hate: "Hate",
  sexual: "Sexual content",
  violence: "Violence",
  copyright: "Copyright",
  other: "Other",
};

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireAdmin(context, request);
  const params = new URL(request.url).searchParams;
  const status = params.get("status") === "resolved" ? "resolved" : "open";
  const page = parsePageParam(params.get("page"));
  const result = await loadAdminData(request, LOAD_ERRORS.reports, () =>
    listReports({ actorId: viewer.id, page, status }),
  );
  return { reports: result.data, error: result.error, status };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireAdminApi(context);
  const parsed = reportActionSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return data(withMessage(invalidForm(parsed.error)), { status: 400 });
  const input = parsed.data;
  return runAdminAction(async () => {
    if (input.intent === "resolve") {
      await resolveReport({ actorId: viewer.id, reportId: input.reportId });
      return "Report resolved.";
    }
    const kind = await deleteReportedContent({
      actorId: viewer.id,
      reportId: input.reportId,
      reason: input.reason,
    });
    return kind === "post" ? "Post deleted." : "Comment deleted.";
  });
}

/** Shows the outcome as a toast, whatever happened to the button meanwhile. */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return announceAdminAction(serverAction);
}

function ResolveButton({ reportId }: { reportId: string }) {
  const fetcher = useFetcher<ActionResult>();
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="resolve" />
      <input type="hidden" name="reportId" value={reportId} />
      <Button type="submit" size="sm" variant="secondary" disabled={fetcher.state !== "idle"}>
        <Icon name="check" className="size-4" />
        Resolve
      </Button>
    </fetcher.Form>
  );
}

export default function AdminReports({ loaderData }: Route.ComponentProps) {
  const { reports, error, status } = loaderData;
  const tab = (isActive: boolean) =>
    cn(
      "rounded-md px-3 py-1.5 text-sm font-medium",
      isActive ? "bg-accent text-accent-foreground" : "text-muted-foreground hover:bg-muted",
    );
  return (
    <section aria-labelledby="reports-heading">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <h2 id="reports-heading" className="text-lg font-semibold">
          Reports
        </h2>
        <nav aria-label="Report status" className="flex gap-1">
          <Link
            to="?status=open"
            className={tab(status === "open")}
            aria-current={status === "open" ? "page" : undefined}
          >
            Open
          </Link>
          <Link
            to="?status=resolved"
            className={tab(status === "resolved")}
            aria-current={status === "resolved" ? "page" : undefined}
          >
            Resolved
          </Link>
        </nav>
      </div>
      {!reports ? (
        <LoadError message={error ?? LOAD_ERRORS.reports} />
      ) : reports.items.length === 0 ? (
        <p className="rounded-xl border border-dashed border-border p-6 text-center text-muted-foreground">
          {status === "open" ? "No open reports. All clear." : "No resolved reports yet."}
        </p>
      ) : (
        <ol className="flex flex-col gap-3">
          {reports.items.map((report) => {
            const target = report.target;
            const what = target.type === "post" ? "post" : "comment";
            return (
              <li key={report.id} className="rounded-xl border border-border bg-card p-4">
                <article
                  aria-label={`Report of a ${what} by @${target.authorUsername ?? "unknown"}`}
                >
                  <p className="text-sm text-muted-foreground">
                    <span className="font-semibold text-foreground">
                      {REASON_LABELS[report.reason] ?? report.reason}
                    </span>{" "}
                    · reported by @{report.reporter.username ?? "unknown"} ·{" "}
                    <time dateTime={new Date(report.createdAt).toISOString()}>
                      {formatDateTime(report.createdAt)}
                    </time>
                  </p>
                  {report.details ? (
                    <p className="mt-1 text-sm whitespace-pre-wrap">“{report.details}”</p>
                  ) : null}
                  <div className="mt-3 rounded-lg border border-border bg-background p-3">
                    <p className="text-xs font-medium text-muted-foreground uppercase">
                      {what} by @{target.authorUsername ?? "unknown"}
                    </p>
                    <p className="mt-1 whitespace-pre-wrap break-words">
                      {target.type === "post" ? target.title : target.content}
                    </p>
                    <Link
                      to={`/post/${target.postId}`}
                      className="mt-2 inline-block text-sm font-medium text-primary underline"
                    >
                      Open the post
                    </Link>
                  </div>
                  {report.status === "open" ? (
                    <div className="mt-3 flex flex-wrap gap-2">
                      <ResolveButton reportId={report.id} />
                      <ReasonDialog
                        trigger={
                          <>
                            <Icon name="trash" className="size-4" />
                            Delete {what}
                          </>
                        }
                        triggerLabel={`Delete the reported ${what}`}
                        title={`Delete this ${what}?`}
                        description={`It is removed for everyone, with its ${what === "post" ? "likes, comments and " : ""}reports. The reason is kept in the audit log.`}
                        confirmLabel={`Delete ${what}`}
                        fields={{ intent: "delete-content", reportId: report.id }}
                      />
                    </div>
                  ) : null}
                </article>
              </li>
            );
          })}
        </ol>
      )}
      {reports ? <Pager info={reports} label="Reports" /> : null}
    </section>
  );
}
