import { useEffect, useRef } from "react";
import type { FetcherWithComponents } from "react-router";
import { showToast } from "~/components/ui/toaster";
import type { MessageFailure } from "~/lib/forms";
import { isNetworkFailure, type NetworkFailure } from "~/lib/resilient-send";

/** The body of a fetcher action's answer (see app/lib/action-response.server.ts). */
export type FetcherOutcome<T extends object> = ({ ok: true } & T) | MessageFailure;

/**
 * Calls `onSuccess` once per successful answer, and shows a toast titled `failureTitle` once
 * per refusal (the optimistic state then falls back to the last confirmed one by itself). A
 * network failure (a route's clientAction's NetworkFailure) is no refusal: the form says so in
 * place and sends again (ADR 037), so it gets no toast.
 */
export function useFetcherOutcome<T extends object>(
  fetcher: FetcherWithComponents<FetcherOutcome<T> | NetworkFailure | undefined>,
  failureTitle: string,
  onSuccess?: (data: { ok: true } & T) => void,
) {
  const handled = useRef<unknown>(null);
  const onSuccessRef = useRef(onSuccess);
  onSuccessRef.current = onSuccess;
  useEffect(() => {
    const data = fetcher.data;
    if (fetcher.state !== "idle" || !data || handled.current === data) return;
    handled.current = data;
    if (isNetworkFailure(data)) return;
    if (data.ok) onSuccessRef.current?.(data);
    else showToast({ type: "error", title: failureTitle, description: data.message });
  }, [fetcher.state, fetcher.data, failureTitle]);
}
