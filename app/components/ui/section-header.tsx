import type { ReactNode } from "react";

/** A section's heading and lead text. */
export function SectionHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="mb-4">
      <h2 className="text-xl font-semibold">{title}</h2>
      {children ? <p className="mt-1 text-sm text-muted-foreground">{children}</p> : null}
    </header>
  );
}
