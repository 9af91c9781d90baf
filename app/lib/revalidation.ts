import type { ShouldRevalidateFunction } from "react-router";
import { isNetworkFailure } from "./resilient-send";

/**
 * Never reload a page's data right after a send the network let down (a clientAction's
 * NetworkFailure, ADR 037): that reload would fail too and replace the page with an error.
 */
export const skipRevalidationAfterNetworkFailure: ShouldRevalidateFunction = ({
  actionResult,
  defaultShouldRevalidate,
}) => (isNetworkFailure(actionResult) ? false : defaultShouldRevalidate);

/**
 * A route's `shouldRevalidate` that skips reloading its data after a fetcher posts to one of
 * `actions` (a like, a report, a follow: the button already shows the change and nothing else
 * on the page depends on it), or after a send the network let down; every other navigation or
 * submission revalidates as usual.
 */
export function skipRevalidationAfter(...actions: string[]): ShouldRevalidateFunction {
  return (args) =>
    args.formAction !== undefined && actions.includes(args.formAction)
      ? false
      : skipRevalidationAfterNetworkFailure(args);
}
