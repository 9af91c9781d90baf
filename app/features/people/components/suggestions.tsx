import { Icon } from "~/components/ui/icon";
import type { Suggestion } from "~/features/follows/index.server";
import { PersonRow } from "./person-row";

/** "People to follow", with the reason for each suggestion. */
export function FollowSuggestions({
  suggestions,
  viewerId,
  title = "People to follow",
}: {
  suggestions: Suggestion[];
  viewerId: string;
  title?: string;
}) {
  if (suggestions.length === 0) return null;
  return (
    <section
      aria-labelledby="suggestions-heading"
      className="rounded-xl border border-border bg-card p-4 shadow-sm sm:p-5"
    >
      <h2 id="suggestions-heading" className="flex items-center gap-2 text-lg font-semibold">
        <Icon name="sparkles" className="size-5 text-primary" />
        {title}
      </h2>
      <ul className="divide-y divide-border">
        {suggestions.map((s) => (
          <li key={s.id}>
            <PersonRow person={s} viewerId={viewerId} note={s.reason} />
          </li>
        ))}
      </ul>
    </section>
  );
}
