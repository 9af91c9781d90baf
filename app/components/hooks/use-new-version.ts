import { useEffect } from "react";
import { showToast } from "~/components/ui/toaster";

const CHECK_EVERY_MS = 5 * 60_000;

/**
 * Compares the running build with `/version.json` every few minutes and when the tab regains
 * focus; on a new deploy it offers a reload (once).
 */
export function useNewVersionCheck(buildId: string) {
  useEffect(() => {
    if (buildId === "dev") return;
    let announced = false;
    let inFlight = false;
    const check = async () => {
      if (announced || inFlight || document.visibilityState === "hidden") return;
      inFlight = true;
      try {
        const response = await fetch("/version.json", { cache: "no-store" });
        if (!response.ok) return;
        const { id } = (await response.json()) as { id?: string };
        if (id && id !== buildId) {
          announced = true;
          showToast({
            id: "new-version",
            type: "info",
            title: "A new version of Soundtrail is available",
            description: "Reload to get the latest features and fixes.",
            timeout: false,
            actions: [{ label: "Reload", onClick: () => window.location.reload() }],
          });
        }
      } catch {
        // Offline or restarting: try again on the next tick.
      } finally {
        inFlight = false;
      }
    };
    const timer = window.setInterval(check, CHECK_EVERY_MS);
    const onVisible = () => void check();
    window.addEventListener("focus", onVisible);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener("focus", onVisible);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [buildId]);
}
