import { useEffect, useState } from "react";
import { Icon } from "~/components/ui/icon";
import { useLive } from "~/features/realtime/live-provider";

/**
 * A quiet note in the header while the live connection is down ("Reconnecting…"). It waits a
 * moment before showing, so a reconnect that succeeds at once does not flash it.
 */
export function LiveStatus() {
  const { status } = useLive();
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    if (status !== "reconnecting") {
      setVisible(false);
      return;
    }
    const timer = setTimeout(() => setVisible(true), 1_500);
    return () => clearTimeout(timer);
  }, [status]);
  return (
    <p role="status" aria-live="polite" className="contents">
      {visible ? (
        <span
          className="inline-flex items-center gap-1.5 whitespace-nowrap rounded-full border border-border bg-muted px-2.5 py-1 text-xs font-medium text-muted-foreground"
          title="Live updates are paused. Soundtrail reconnects on its own and catches up on what you missed."
        >
          <Icon name="wifi-off" className="size-3.5" />
          <span>
            Reconnecting<span className="sr-only"> to live updates</span>…
          </span>
        </span>
      ) : null}
    </p>
  );
}
