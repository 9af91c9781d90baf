import { AudioWaveform } from "lucide-react";
import { Link } from "react-router";

export function Logo({ to = "/" }: { to?: string }) {
  return (
    <Link
      to={to}
      prefetch="intent"
      viewTransition
      className="flex items-center gap-2 rounded-md text-lg font-bold tracking-tight"
    >
      <span className="rounded-lg bg-primary p-1.5 text-primary-foreground">
        <AudioWaveform aria-hidden="true" className="size-5" />
      </span>
      Soundtrail
    </Link>
  );
}
