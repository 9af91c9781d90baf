import { Link } from "react-router";
import { Icon } from "~/components/ui/icon";
import { searchHref } from "../query";

/** A tag with how many posts carry it; opens the tag's posts. */
export function TagChip({ tag, postCount }: { tag: string; postCount: number }) {
  return (
    <Link
      to={searchHref({ q: `#${tag}`, type: "tags" })}
      prefetch="intent"
      className="inline-flex items-center gap-1.5 rounded-full border border-border bg-card px-3 py-1.5 text-sm hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
    >
      <Icon name="hash" className="size-3.5 text-primary" />
      <span className="font-medium">{tag}</span>
      <span className="text-muted-foreground">
        {postCount} <span className="sr-only">{postCount === 1 ? "post" : "posts"}</span>
      </span>
    </Link>
  );
}
