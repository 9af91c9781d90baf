import { cn } from "~/lib/utils";

/** A person's picture, or their initial on a tinted disc. Decorative: the name is shown next to it. */
export function UserAvatar({
  url,
  name,
  className,
}: {
  url: string | null;
  name: string;
  className?: string;
}) {
  const base = cn("inline-flex size-9 shrink-0 rounded-full", className);
  if (url) return <img src={url} alt="" className={cn(base, "object-cover")} loading="lazy" />;
  return (
    <span
      aria-hidden="true"
      className={cn(
        base,
        "items-center justify-center bg-accent text-sm font-semibold text-accent-foreground",
      )}
    >
      {(name.trim()[0] ?? "?").toUpperCase()}
    </span>
  );
}
