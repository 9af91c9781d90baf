import { Link } from "react-router";
import { Icon } from "~/components/ui/icon";

export function Logo({ to = "/" }: { to?: string }) {
  return (
    <Link
      to={to}
      prefetch="intent"
      viewTransition
      className="flex items-center gap-2 rounded-md text-lg font-bold tracking-tight"
    >
      <span className="rounded-lg bg-primary p-1.5 text-primary-foreground">
        <Icon name="audio-waveform" className="size-5" />
      </span>
      Soundtrail
    </Link>
  );
}
