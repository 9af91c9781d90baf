import { Link } from "react-router";
import { Icon } from "~/components/ui/icon";

/**
 * The mark and the name. `isCompact`: on the narrowest phones the name is left to screen readers,
 * so a signed-in header (search, notifications, profile, sign out, menu) fits in 390 px.
 */
export function Logo({ to = "/", isCompact = false }: { to?: string; isCompact?: boolean }) {
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
      <span className={isCompact ? "max-[419px]:sr-only" : undefined}>Soundtrail</span>
    </Link>
  );
}
