import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { Form, useFetcher, useNavigate } from "react-router";
import { Button } from "~/components/ui/button";
import { Icon, type IconName } from "~/components/ui/icon";
import { cn } from "~/lib/utils";
import { SEARCH_QUERY_MAX_LENGTH, type SearchType, searchHref } from "../query";
import type { SearchPageData } from "../search-page.server";
import { MUSIC_SECTION_ICONS, musicItemHref } from "./music-result";

const RECENT_KEY = "soundtrail.recent-searches";
const RECENT_MAX = 8;
const DEBOUNCE_MS = 180;

interface Option {
  id: string;
  label: string;
  detail?: string;
  href: string;
  icon: IconName;
  /** What goes into the recent searches when chosen. */
  query: string;
}

function readRecent(): string[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? "[]");
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

function remember(query: string) {
  const q = query.trim();
  if (!q) return;
  try {
    const next = [q, ...readRecent().filter((r) => r !== q)].slice(0, RECENT_MAX);
    localStorage.setItem(RECENT_KEY, JSON.stringify(next));
  } catch {
    // Storage full or blocked: recent searches are a convenience.
  }
}

function optionsFrom(data: SearchPageData | undefined, q: string): Option[] {
  if (data?.view !== "top" || data.q !== q) return [];
  const { people, music, tags } = data.top;
  return [
    ...people.slice(0, 4).map((p) => ({
      id: `p-${p.id}`,
      label: p.displayName,
      detail: `@${p.username}`,
      href: `/u/${p.username}`,
      icon: "user" as const,
      query: q,
    })),
    ...music.slice(0, 4).map((m) => ({
      id: `m-${m.id}`,
      label: m.name,
      detail: m.artist && m.section !== "artists" ? m.artist : `${m.postCount} posts`,
      href: musicItemHref(m, q),
      icon: MUSIC_SECTION_ICONS[m.section],
      query: q,
    })),
    ...tags.slice(0, 3).map((t) => ({
      id: `t-${t.tag}`,
      label: `#${t.tag}`,
      detail: `${t.postCount} posts`,
      href: searchHref({ q: `#${t.tag}`, type: "tags" }),
      icon: "hash" as const,
      query: `#${t.tag}`,
    })),
  ];
}

/**
 * The search box: a GET form (works without JavaScript) that, with JavaScript, suggests people,
 * music and tags as you type (debounced; a newer request replaces the older one) and offers
 * recent searches kept on this device. An ARIA 1.2 combobox: arrow keys move, Enter opens,
 * Escape closes. `/` or Ctrl/⌘-K focus it from anywhere on the page.
 *
 * Two variants: `page` (the big box on `/search`, with a Search button) and `header` (compact,
 * in the header of every other signed-in page; Enter submits). A page renders only one of them,
 * so the shortcut is registered once.
 */
export function SearchBox({
  q,
  type,
  className,
  variant = "page",
  onShortcut,
  onDone,
}: {
  q: string;
  type: SearchType;
  className?: string;
  variant?: "page" | "header";
  /** Called when `/` or Ctrl/⌘-K is pressed, before the box takes the focus (to reveal it). */
  onShortcut?: () => void;
  /** Called after a search is submitted or a suggestion chosen (to hide a revealed box). */
  onDone?: () => void;
}) {
  const id = useId();
  const listId = `${id}-list`;
  const inputRef = useRef<HTMLInputElement>(null);
  const fetcher = useFetcher<SearchPageData>();
  const navigate = useNavigate();
  const [value, setValue] = useState(q);
  const [isOpen, setIsOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [recent, setRecent] = useState<string[]>([]);
  const typed = value.trim();
  const shortcutRef = useRef(onShortcut);
  shortcutRef.current = onShortcut;
  const isHeader = variant === "header";

  useEffect(() => setValue(q), [q]);

  // Suggestions follow what is typed, after a pause.
  const { load } = fetcher;
  useEffect(() => {
    if (!isOpen || !typed) return;
    const timer = setTimeout(() => load(searchHref({ q: typed })), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed, isOpen, load]);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const isTyping =
        target?.isContentEditable ||
        ["INPUT", "TEXTAREA", "SELECT"].includes(target?.tagName ?? "");
      const isShortcut =
        ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") ||
        (event.key === "/" && !isTyping && !event.ctrlKey && !event.metaKey && !event.altKey);
      if (!isShortcut) return;
      event.preventDefault();
      shortcutRef.current?.();
      // After a reveal has rendered: a hidden input cannot take the focus.
      requestAnimationFrame(() => {
        inputRef.current?.focus();
        inputRef.current?.select();
      });
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const suggestions = typed ? optionsFrom(fetcher.data, typed) : [];
  const options: Option[] = typed
    ? [
        ...suggestions,
        {
          id: "all",
          label: `Search for “${typed}”`,
          href: searchHref({ q: typed, type }),
          icon: "search",
          query: typed,
        },
      ]
    : recent.map((r, i) => ({
        id: `r-${i}`,
        label: r,
        href: searchHref({ q: r, type }),
        icon: "clock",
        query: r,
      }));
  const isExpanded = isOpen && options.length > 0;
  const activeOption = isExpanded ? options[active] : undefined;

  const open = () => {
    setRecent(readRecent());
    setIsOpen(true);
  };
  const close = () => {
    setIsOpen(false);
    setActive(-1);
  };
  const choose = (option: Option) => {
    remember(option.query);
    close();
    onDone?.();
    navigate(option.href);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!isOpen) open();
      const step = event.key === "ArrowDown" ? 1 : -1;
      // Past either end, the focus returns to what was typed (no option active).
      setActive((current) => {
        const next = current + step;
        if (next >= options.length) return -1;
        return next < -1 ? options.length - 1 : next;
      });
    } else if (event.key === "Escape") {
      if (isExpanded) {
        event.preventDefault();
        close();
      } else if (isHeader) {
        // A second Escape leaves the header's box (and hides it again on a phone).
        inputRef.current?.blur();
        onDone?.();
      }
    } else if (event.key === "Enter" && activeOption) {
      event.preventDefault();
      choose(activeOption);
    }
  };

  return (
    <Form
      method="get"
      action="/search"
      role="search"
      className={cn("relative flex gap-2", className)}
      onSubmit={() => {
        remember(value);
        close();
        onDone?.();
      }}
    >
      <label htmlFor={`${id}-q`} className="sr-only">
        Search people, posts, music and tags
      </label>
      <div className="relative flex-1">
        <Icon
          name="search"
          className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
        />
        <input
          ref={inputRef}
          id={`${id}-q`}
          name="q"
          type="search"
          role="combobox"
          aria-expanded={isExpanded}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={activeOption ? `${id}-${activeOption.id}` : undefined}
          aria-keyshortcuts="/ Control+K Meta+K"
          value={value}
          onChange={(event) => {
            setValue(event.target.value);
            setActive(-1);
            if (!isOpen) open();
          }}
          onFocus={open}
          onBlur={() => setTimeout(close, 120)}
          onKeyDown={onKeyDown}
          maxLength={SEARCH_QUERY_MAX_LENGTH}
          placeholder={isHeader ? "Search…" : "People, songs, artists, #tags…"}
          autoComplete="off"
          enterKeyHint="search"
          className={cn(
            "w-full rounded-lg border border-border bg-background pr-3 pl-9 placeholder:text-muted-foreground focus-visible:outline-2 focus-visible:outline-ring",
            isHeader ? "h-9 text-sm" : "h-11 text-base",
          )}
        />
        <div
          className={cn(
            "absolute top-full right-0 left-0 z-30 mt-1 overflow-hidden rounded-lg border border-border bg-card shadow-lg",
            isHeader && "md:right-auto md:w-80",
            !isExpanded && "hidden",
          )}
        >
          {!typed && recent.length > 0 ? (
            <div className="flex items-center justify-between px-3 pt-2 text-xs text-muted-foreground">
              <span id={`${id}-recent`}>Recent searches</span>
              <button
                type="button"
                className="rounded px-1 font-medium text-primary hover:underline"
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => {
                  try {
                    localStorage.removeItem(RECENT_KEY);
                  } catch {
                    // Nothing stored.
                  }
                  setRecent([]);
                }}
              >
                Clear recent searches
              </button>
            </div>
          ) : null}
          <div
            id={listId}
            role="listbox"
            aria-label={typed ? "Suggestions" : "Recent searches"}
            className="max-h-80 overflow-y-auto py-1"
          >
            {options.map((option, i) => {
              return (
                <div
                  key={option.id}
                  tabIndex={-1}
                  id={`${id}-${option.id}`}
                  role="option"
                  aria-selected={i === active}
                  className={cn(
                    "flex cursor-pointer items-center gap-2 px-3 py-2 text-sm",
                    i === active ? "bg-accent text-accent-foreground" : "hover:bg-muted",
                  )}
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => choose(option)}
                  onKeyDown={(event) => {
                    // Focus stays in the box; this serves a screen reader that focused the option.
                    if (event.key === "Enter") choose(option);
                  }}
                >
                  <Icon name={option.icon} className="size-4 shrink-0 text-primary" />
                  <span className="truncate font-medium">{option.label}</span>
                  {option.detail ? (
                    <span className="truncate text-xs text-muted-foreground">{option.detail}</span>
                  ) : null}
                </div>
              );
            })}
          </div>
        </div>
      </div>
      {type !== "top" ? <input type="hidden" name="type" value={type} /> : null}
      {isHeader ? null : (
        <Button type="submit" className="h-11">
          Search
        </Button>
      )}
    </Form>
  );
}
