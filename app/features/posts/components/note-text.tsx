import { Fragment } from "react";
import { Link } from "react-router";
import { cn } from "~/lib/utils";
import { tagHref, tokenizeNote } from "../note";

// .note and .note-link in app.css (notes repeat on every post card).
const linkClass = "note-link";

/**
 * User text with its links, @mentions and #tags turned into links. Every piece is a React
 * text node or element, so markup typed by a user is shown as text and never runs.
 */
export function NoteText({
  text,
  className,
  discover = true,
}: {
  text: string;
  className?: string;
  /** `data-discover` on the mention and tag links (a list of cards needs it on one card). */
  discover?: boolean;
}) {
  const segments = tokenizeNote(text);
  const discoverLinks = discover ? "render" : "none";
  return (
    <p className={cn("note", className)}>
      {segments.map((segment, index) => {
        const key = `${index}-${segment.type}`;
        switch (segment.type) {
          case "url":
            return (
              <a
                key={key}
                href={segment.href}
                className={cn(linkClass, "break-all")}
                rel="noreferrer nofollow ugc"
                target="_blank"
              >
                {segment.text}
              </a>
            );
          case "mention":
            return (
              <Link
                key={key}
                to={`/u/${segment.username}`}
                prefetch="intent"
                discover={discoverLinks}
                className={linkClass}
              >
                {segment.text}
              </Link>
            );
          case "tag":
            return (
              <Link
                key={key}
                to={tagHref(segment.tag)}
                discover={discoverLinks}
                className={linkClass}
              >
                {segment.text}
              </Link>
            );
          default:
            // Plain text needs no element of its own (segments never hold two texts in a row).
            return <Fragment key={key}>{segment.text}</Fragment>;
        }
      })}
    </p>
  );
}
