import type { ReactNode } from "react";
import { cn } from "~/lib/utils";

/**
 * A box that scrolls (wide tables on a phone). It is focusable so keyboard users can scroll
 * it too (WCAG 2.1.1; axe "scrollable-region-focusable"), and named by `label`.
 */
export function ScrollRegion({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <section
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
      className={cn(
        // `relative`: visually hidden (absolutely placed) text in a cell stays inside the
        // scrolling box instead of widening the whole page on a phone.
        "relative overflow-x-auto rounded-xl border border-border focus-visible:outline-2 focus-visible:outline-ring",
        className,
      )}
    >
      {children}
    </section>
  );
}
