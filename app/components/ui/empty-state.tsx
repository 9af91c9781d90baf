import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Icon, type IconName } from "./icon";

/** A friendly "nothing here yet" panel with an optional next step. */
export function EmptyState({
  icon,
  title,
  children,
  action,
}: {
  /** A sprite icon name (or, still accepted, a lucide-react component). */
  icon: IconName | LucideIcon;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="flex flex-col items-center rounded-xl border border-dashed border-border px-6 py-12 text-center">
      <span className="mb-4 rounded-full bg-accent p-3 text-accent-foreground">
        {typeof icon === "string" ? (
          <Icon name={icon} className="size-6" />
        ) : (
          (() => {
            const LegacyIcon = icon;
            return <LegacyIcon aria-hidden="true" className="size-6" />;
          })()
        )}
      </span>
      <h2 className="text-lg font-semibold">{title}</h2>
      {children ? <div className="mt-2 max-w-md text-muted-foreground">{children}</div> : null}
      {action ? <div className="mt-6">{action}</div> : null}
    </div>
  );
}
