import { useId } from "react";
import { useFetcher, useLocation } from "react-router";
import { type FetcherOutcome, useFetcherOutcome } from "~/components/hooks/use-fetcher-outcome";
import { Button } from "~/components/ui/button";
import { showToast } from "~/components/ui/toaster";
import { REPORT_REASON_KEYS, REPORT_REASON_LABELS } from "../reasons";

/** Report a post or a comment: a reason, optional details; stored for the admin area. */
export function ReportForm({
  target,
  onDone,
}: {
  target: { postId: string } | { commentId: string };
  onDone?: () => void;
}) {
  const fetcher = useFetcher<FetcherOutcome<{ reported: boolean }>>();
  const location = useLocation();
  const id = useId();
  useFetcherOutcome(fetcher, "Could not send the report", () => {
    showToast({
      type: "success",
      title: "Thanks for reporting",
      description: "The moderators of this Soundtrail will review it.",
    });
    onDone?.();
  });
  const what = "postId" in target ? "post" : "comment";
  return (
    <fetcher.Form method="post" action="/api/report" className="flex flex-col gap-2 p-1">
      {"postId" in target ? (
        <input type="hidden" name="postId" value={target.postId} />
      ) : (
        <input type="hidden" name="commentId" value={target.commentId} />
      )}
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      <label htmlFor={`${id}-reason`} className="text-sm font-medium">
        Why are you reporting this {what}?
      </label>
      <select
        id={`${id}-reason`}
        name="reason"
        required
        defaultValue=""
        className="h-9 rounded-lg border border-border bg-background px-2 text-sm"
      >
        <option value="" disabled>
          Choose a reason
        </option>
        {REPORT_REASON_KEYS.map((key) => (
          <option key={key} value={key}>
            {REPORT_REASON_LABELS[key]}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-details`} className="text-sm font-medium">
        Details (optional)
      </label>
      <textarea
        id={`${id}-details`}
        name="details"
        maxLength={1000}
        rows={2}
        className="rounded-lg border border-border bg-background px-2 py-1.5 text-sm"
      />
      <Button type="submit" size="sm" variant="danger" disabled={fetcher.state !== "idle"}>
        Send report
      </Button>
    </fetcher.Form>
  );
}
