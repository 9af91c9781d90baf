import { Flag, MoreHorizontal, Pencil, Trash2 } from "lucide-react";
import { useRef, useState } from "react";
import { Form, Link } from "react-router";
import { ReportForm } from "~/features/reports/components/report-form";

const itemClass =
  "flex w-full items-center gap-2 rounded-md px-3 py-2 text-left text-sm hover:bg-muted focus-visible:bg-muted";

/**
 * The "…" menu of a post: edit and delete for its author, report for everyone else.
 * A <details> disclosure: works by keyboard and without JavaScript.
 */
export function PostMenu({
  postId,
  title,
  isOwn,
  isSignedIn,
}: {
  postId: string;
  title: string;
  isOwn: boolean;
  isSignedIn: boolean;
}) {
  const details = useRef<HTMLDetailsElement>(null);
  const [showReport, setShowReport] = useState(false);
  if (!isSignedIn) return null;
  return (
    <details
      ref={details}
      className="relative"
      onKeyDown={(event) => {
        if (event.key === "Escape" && details.current?.open) {
          details.current.open = false;
          details.current.querySelector("summary")?.focus();
        }
      }}
    >
      <summary className="flex size-9 cursor-pointer list-none items-center justify-center rounded-lg text-muted-foreground hover:bg-muted hover:text-foreground [&::-webkit-details-marker]:hidden">
        <MoreHorizontal aria-hidden="true" className="size-5" />
        <span className="sr-only">More actions for “{title}”</span>
      </summary>
      <div className="absolute right-0 z-20 mt-1 w-64 rounded-xl border border-border bg-card p-1 shadow-lg">
        {isOwn ? (
          <>
            <Link to={`/post/${postId}/edit`} className={itemClass}>
              <Pencil aria-hidden="true" className="size-4" />
              Edit post
            </Link>
            <Form
              method="post"
              action={`/post/${postId}`}
              onSubmit={(event) => {
                if (!window.confirm("Delete this post? Its likes and comments go with it.")) {
                  event.preventDefault();
                }
              }}
            >
              <input type="hidden" name="intent" value="delete-post" />
              <button type="submit" className={`${itemClass} text-danger`}>
                <Trash2 aria-hidden="true" className="size-4" />
                Delete post
              </button>
            </Form>
          </>
        ) : showReport ? (
          <ReportForm
            target={{ postId }}
            onDone={() => {
              setShowReport(false);
              if (details.current) details.current.open = false;
            }}
          />
        ) : (
          <Link
            to={`/post/${postId}?report=1#report`}
            className={itemClass}
            onClick={(event) => {
              // With JavaScript the form opens right here; without, on the post page.
              event.preventDefault();
              setShowReport(true);
            }}
          >
            <Flag aria-hidden="true" className="size-4" />
            Report post
          </Link>
        )}
      </div>
    </details>
  );
}
