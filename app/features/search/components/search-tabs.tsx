import type { KeyboardEvent } from "react";
import { Link } from "react-router";
import { cn } from "~/lib/utils";
import { SEARCH_TYPE_LABELS, SEARCH_TYPES, type SearchType, searchHref } from "../query";

/**
 * The result tabs. Each is a link (a URL of its own, so it works without JavaScript);
 * Tab reaches them, and arrow keys, Home and End move between them.
 */
export function SearchTabs({ q, type }: { q: string; type: SearchType }) {
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    const keys = ["ArrowLeft", "ArrowRight", "Home", "End"];
    if (!keys.includes(event.key)) return;
    const links = Array.from(event.currentTarget.querySelectorAll<HTMLAnchorElement>("a"));
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (at < 0) return;
    event.preventDefault();
    const next =
      event.key === "Home"
        ? 0
        : event.key === "End"
          ? links.length - 1
          : (at + (event.key === "ArrowRight" ? 1 : -1) + links.length) % links.length;
    links[next]?.focus();
  };
  return (
    <nav aria-label="Result types" className="mb-6" onKeyDown={onKeyDown}>
      <ul className="flex gap-1 overflow-x-auto rounded-lg border border-border p-1">
        {SEARCH_TYPES.map((t) => (
          <li key={t} className="flex-1">
            <Link
              to={searchHref({ q, type: t })}
              aria-current={type === t ? "page" : undefined}
              prefetch="intent"
              className={cn(
                "block whitespace-nowrap rounded-md px-3 py-2 text-center text-sm font-medium hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring",
                type === t
                  ? "bg-accent text-accent-foreground hover:bg-accent"
                  : "text-muted-foreground",
              )}
            >
              {SEARCH_TYPE_LABELS[t]}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
