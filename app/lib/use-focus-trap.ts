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
 * While `active`, keeps keyboard focus inside `containers`: Tab and Shift+Tab walk their controls
 * in the order the containers are given and wrap around; Escape calls `onEscape`. The
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
      if (focusable.length === 0) return;
      // The containers need not be next to each other in the page (a menu button after its
      // menu), so every step is taken here rather than left to the browser's tab order.
      event.preventDefault();
      const index = focusable.indexOf(document.activeElement as HTMLElement);
      const step = event.shiftKey ? -1 : 1;
      const next =
        index === -1
          ? event.shiftKey
            ? focusable.length - 1
            : 0
          : (index + step + focusable.length) % focusable.length;
      focusable[next]?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [active]);
}
