import type { ShouldRevalidateFunction } from "react-router";

/**
 * A route's `shouldRevalidate` that skips reloading its data after a fetcher posts to one of
 * `actions` (a like, a report, a follow: the button already shows the change and nothing else
 * on the page depends on it); every other navigation or submission revalidates as usual.
 */
export function skipRevalidationAfter(...actions: string[]): ShouldRevalidateFunction {
  return ({ formAction, defaultShouldRevalidate }) =>
    formAction !== undefined && actions.includes(formAction) ? false : defaultShouldRevalidate;
}
