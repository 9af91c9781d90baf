import { useEffect, useRef, useState } from "react";
import { Form, Link } from "react-router";
import { ConfirmSubmitButton } from "~/components/ui/dialog";
import { Icon } from "~/components/ui/icon";
import { ReportForm } from "~/features/reports";

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
  // The menu's items exist only while it is open: a feed page has 20 of these menus, closed.
  const [isOpen, setIsOpen] = useState(false);
  // Opened before the page was hydrated (React did not hear that toggle): show the items now.
  useEffect(() => {
    if (details.current?.open) setIsOpen(true);
  }, []);
  if (!isSignedIn) return null;
  return (
    <details
      ref={details}
      // .post-card > header > details (app.css)
      onToggle={(event) => setIsOpen(event.currentTarget.open)}
      onKeyDown={(event) => {
        // Escape inside the confirmation dialog closes the dialog only, not the menu under it.
        if (event.target instanceof Element && event.target.closest("dialog")) return;
        if (event.key === "Escape" && details.current?.open) {
          details.current.open = false;
          details.current.querySelector("summary")?.focus();
        }
      }}
    >
      {/* The "…" is CSS: .post-card > header > details > summary::before (app.css). */}
      <summary>
        <span className="sr-only">{`More actions for “${title}”`}</span>
      </summary>
      {isOpen ? (
        <div className="absolute right-0 z-20 mt-1 w-64 rounded-xl border border-border bg-card p-1 shadow-lg">
          {isOwn ? (
            <>
              <Link to={`/post/${postId}/edit`} className={itemClass}>
                <Icon name="pencil" className="size-4" />
                Edit post
              </Link>
              <Form method="post" action={`/post/${postId}`}>
                <input type="hidden" name="intent" value="delete-post" />
                <ConfirmSubmitButton
                  className={`${itemClass} text-danger`}
                  title="Delete this post?"
                  description="Its likes and comments go with it. This cannot be undone."
                  confirmLabel="Delete post"
                >
                  <Icon name="trash" className="size-4" />
                  Delete post
                </ConfirmSubmitButton>
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
              <Icon name="flag" className="size-4" />
              Report post
            </Link>
          )}
        </div>
      ) : null}
    </details>
  );
}
