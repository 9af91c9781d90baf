import { useEffect } from "react";

/**
 * Registers the service worker (public/sw.js: the offline page, nothing personal) in production
 * builds only, so `react-router dev` never serves stale files from it.
 */
export function useServiceWorker() {
  useEffect(() => {
    if (!import.meta.env.PROD || !("serviceWorker" in navigator)) return;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      // Private windows and locked-down browsers refuse workers: the app works without one.
    });
  }, []);
}
