import { useLocation } from "react-router";
import { ButtonLink } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import type { PageInfo } from "../paging";

function hrefFor(search: string, page: number): string {
  const params = new URLSearchParams(search);
  if (page <= 1) params.delete("page");
  else params.set("page", String(page));
  const query = params.toString();
  return query ? `?${query}` : "?";
}

/**
 * "Page x of y" with Previous only while page > 1 and Next only while page < total pages
 * (spec §4). `label` names what is paged, for screen readers.
 */
export function Pager({ info, label }: { info: PageInfo; label: string }) {
  const { search } = useLocation();
  return (
    <nav
      aria-label={`${label} pages`}
      className="mt-4 flex items-center justify-between gap-3 text-sm"
    >
      <div className="min-w-28">
        {info.hasPrevious ? (
          <ButtonLink to={hrefFor(search, info.page - 1)} variant="secondary" size="sm">
            <Icon name="chevron-left" className="size-4" />
            Previous
          </ButtonLink>
        ) : null}
      </div>
      <p aria-live="polite" className="text-muted-foreground">
        Page {info.page} of {info.totalPages}
      </p>
      <div className="flex min-w-28 justify-end">
        {info.hasNext ? (
          <ButtonLink to={hrefFor(search, info.page + 1)} variant="secondary" size="sm">
            Next
            <Icon name="chevron-right" className="size-4" />
          </ButtonLink>
        ) : null}
      </div>
    </nav>
  );
}
