import { useEffect } from "react";
import { useLocation, useRevalidator, useRouteError } from "react-router";
import { ButtonLink } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { reloadOnce } from "~/lib/reload-guard";
import { type DescribedError, describeRouteError } from "~/lib/route-error";

/**
 * Spec §2 error screen: status code, status message, and a "Go Home" button to `/`. On its
 * own (the root's boundary) it is the page's `<main>`; inside a layout, which has its own
 * `<main>`, it is a section of it.
 */
export function ErrorScreen({
  error,
  inLayout = false,
}: {
  error: DescribedError;
  inLayout?: boolean;
}) {
  const Element = inLayout ? "section" : "main";
  return (
    <Element
      id={inLayout ? undefined : "main"}
      aria-labelledby={inLayout ? "error-title" : undefined}
      className="mx-auto flex min-h-[60vh] max-w-xl flex-col items-center justify-center px-4 py-16 text-center"
    >
      <span aria-hidden="true" className="mb-6 rounded-xl bg-primary p-2 text-primary-foreground">
        <Icon name="audio-waveform" className="size-6" />
      </span>
      <p className="text-6xl font-black text-primary">{error.status}</p>
      <h1 id="error-title" className="mt-2 text-2xl font-bold">
        {error.statusText}
      </h1>
      <p className="mt-3 break-words text-muted-foreground">{error.message}</p>
      {error.stack ? (
        <pre className="mt-6 max-h-80 w-full overflow-auto rounded-lg bg-muted p-4 text-left text-xs">
          {error.stack}
        </pre>
      ) : null}
      <ButtonLink to="/" reloadDocument className="mt-8">
        <Icon name="house" className="size-4" />
        Go Home
      </ButtonLink>
    </Element>
  );
}

/**
 * A page whose data could not be fetched because the network is gone: not an error screen with
 * a status code, but a note that it comes back — and it does, by itself, when the browser is
 * online again (or on "Try again").
 */
export function OfflineScreen({
  error,
  inLayout = false,
}: {
  error: DescribedError;
  inLayout?: boolean;
}) {
  const revalidator = useRevalidator();
  useEffect(() => {
    const onOnline = () => void revalidator.revalidate();
    window.addEventListener("online", onOnline);
    return () => window.removeEventListener("online", onOnline);
  }, [revalidator]);
  const Element = inLayout ? "section" : "main";
  return (
    <Element
      id={inLayout ? undefined : "main"}
      aria-labelledby="error-title"
      className="mx-auto flex min-h-[60vh] max-w-xl flex-col items-center justify-center px-4 py-16 text-center"
    >
      <span aria-hidden="true" className="mb-6 rounded-xl bg-muted p-2 text-foreground">
        <Icon name="radio" className="size-6" />
      </span>
      <h1 id="error-title" className="text-2xl font-bold">
        {error.statusText}
      </h1>
      <p role="status" className="mt-3 break-words text-muted-foreground">
        {revalidator.state === "loading" ? "Trying again…" : error.message}
      </p>
      <button
        type="button"
        onClick={() => void revalidator.revalidate()}
        className="mt-8 rounded-lg border border-border px-4 py-2 font-medium hover:bg-muted"
      >
        Try again
      </button>
    </Element>
  );
}

/**
 * The error of the route that failed, described (and a stale-chunk error reloaded once): what
 * every `ErrorBoundary` renders, the root's and each layout's inside its own shell.
 */
export function RouteErrorScreen({ inLayout = false }: { inLayout?: boolean }) {
  const error = useRouteError();
  const { pathname } = useLocation();
  const described = describeRouteError(error, pathname, import.meta.env.DEV);
  useEffect(() => {
    if (described.isChunkLoadError) reloadOnce();
  }, [described.isChunkLoadError]);
  if (described.isNetworkError) return <OfflineScreen error={described} inLayout={inLayout} />;
  return <ErrorScreen error={described} inLayout={inLayout} />;
}
