import { useEffect, useRef } from "react";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/** The visible, focusable elements inside `containers`, in the order the containers are given. */
export function focusableIn(containers: (HTMLElement | null | undefined)[]): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const container of containers) {
    if (!container) continue;
    const candidates = container.matches(FOCUSABLE)
      ? [container]
      : Array.from(container.querySelectorAll<HTMLElement>(FOCUSABLE));
    for (const element of candidates) {
      // Hidden elements (display: none, closed <details> content) have no client rects.
      if (element.getClientRects().length > 0) out.push(element);
    }
  }
  return out;
}

/**
 * While `active`, keeps keyboard focus inside `containers` (Tab from the last control goes to
 * the first, Shift+Tab from the first to the last) and calls `onEscape` on Escape. The
 * containers are read when a key is pressed, so they may change while the trap is on.
 */
export function useFocusTrap(options: {
  active: boolean;
  containers: () => (HTMLElement | null | undefined)[];
  onEscape: () => void;
}) {
  const latest = useRef(options);
  latest.current = options;
  const { active } = options;
  useEffect(() => {
    if (!active) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        event.preventDefault();
        latest.current.onEscape();
        return;
      }
      if (event.key !== "Tab") return;
      const focusable = focusableIn(latest.current.containers());
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (!first || !last) return;
      const current = document.activeElement;
      const index = focusable.indexOf(current as HTMLElement);
      if (index === -1) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      } else if (!event.shiftKey && current === last) {
        event.preventDefault();
        first.focus();
      } else if (event.shiftKey && current === first) {
        event.preventDefault();
        last.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [active]);
}
