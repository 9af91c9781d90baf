import { ButtonLink } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import type { DescribedError } from "~/lib/route-error";

/** Spec §2 error screen: status code, status message, and a "Go Home" button to `/`. */
export function ErrorScreen({ error }: { error: DescribedError }) {
  return (
    <main
      id="main"
      className="mx-auto flex min-h-[60vh] max-w-xl flex-col items-center justify-center px-4 py-16 text-center"
    >
      <span aria-hidden="true" className="mb-6 rounded-xl bg-primary p-2 text-primary-foreground">
        <Icon name="audio-waveform" className="size-6" />
      </span>
      <p className="text-6xl font-black text-primary">{error.status}</p>
      <h1 className="mt-2 text-2xl font-bold">{error.statusText}</h1>
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
    </main>
  );
}
