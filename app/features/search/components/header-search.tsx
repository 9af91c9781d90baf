import { useEffect, useId, useState } from "react";
import { useLocation } from "react-router";
import { Icon } from "~/components/ui/icon";
import { cn } from "~/lib/utils";
import { SearchBox } from "./search-box";

/**
 * The header's search: a compact box on wide screens; on a phone a search button that reveals
 * the box in a row under the header. `/` or Ctrl/⌘-K opens it from anywhere. Not rendered on
 * `/search` itself, whose page box takes the shortcut instead.
 */
export function HeaderSearch() {
  const [isRevealed, setIsRevealed] = useState(false);
  const rowId = useId();
  const location = useLocation();

  // biome-ignore lint/correctness/useExhaustiveDependencies: hide the phone row whenever the page changes
  useEffect(() => setIsRevealed(false), [location.pathname]);

  return (
    <>
      <button
        type="button"
        className="rounded-md p-2 text-muted-foreground hover:bg-muted hover:text-foreground md:hidden"
        aria-expanded={isRevealed}
        aria-controls={rowId}
        onClick={() => setIsRevealed((v) => !v)}
      >
        <Icon name="search" className="size-5" />
        <span className="sr-only">{isRevealed ? "Close search" : "Search"}</span>
      </button>
      <div
        id={rowId}
        className={cn(
          // Phone: a full-width row under the 4 rem header. Wide: inline, taking what room is left.
          "absolute inset-x-0 top-16 border-b border-border bg-background px-4 py-3",
          "md:static md:block md:w-44 md:border-0 md:bg-transparent md:p-0",
          isRevealed ? "block" : "hidden",
        )}
      >
        <SearchBox
          q=""
          type="top"
          variant="header"
          onShortcut={() => setIsRevealed(true)}
          onDone={() => setIsRevealed(false)}
        />
      </div>
    </>
  );
}
