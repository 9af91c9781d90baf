import { Search as SearchIcon } from "lucide-react";
import { Form } from "react-router";
import { Button } from "~/components/ui/button";
import { SEARCH_QUERY_MAX_LENGTH, type SearchType } from "../query";

/**
 * The search box: a plain GET form, so it works without JavaScript and every search is a URL
 * (shareable, back and forward work). The tab stays as it is.
 */
export function SearchForm({ q, type }: { q: string; type: SearchType }) {
  return (
    <Form method="get" action="/search" role="search" className="mb-4 flex gap-2">
      <label htmlFor="search-q" className="sr-only">
        Search people, posts, music and tags
      </label>
      <div className="relative flex-1">
        <SearchIcon
          aria-hidden="true"
          className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
        />
        <input
          id="search-q"
          name="q"
          type="search"
          key={q}
          defaultValue={q}
          maxLength={SEARCH_QUERY_MAX_LENGTH}
          placeholder="People, songs, artists, #tags…"
          autoComplete="off"
          enterKeyHint="search"
          className="h-11 w-full rounded-lg border border-border bg-background pr-3 pl-9 text-base placeholder:text-muted-foreground focus-visible:outline-2 focus-visible:outline-ring"
        />
      </div>
      {type !== "top" ? <input type="hidden" name="type" value={type} /> : null}
      <Button type="submit" className="h-11">
        Search
      </Button>
    </Form>
  );
}
