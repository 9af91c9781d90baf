import { useEffect, useId, useRef, useState } from "react";
import { FieldErrorList } from "~/components/ui/field";
import { cn } from "~/lib/utils";
import { MUSIC_FIELD_MAX_LENGTH } from "../constants";

export const inputClass = "h-10 w-full rounded-lg border bg-background px-3 text-foreground";

/** A text input with a label, errors and autocomplete from music already posted here. */
export function MusicField({
  name,
  label,
  defaultValue,
  errors,
  hidden,
  required,
  suggestField,
  inputRef,
}: {
  name: string;
  label: string;
  defaultValue?: string;
  errors?: string[];
  hidden?: boolean;
  required?: boolean;
  suggestField: "title" | "artist" | "album";
  inputRef?: React.Ref<HTMLInputElement>;
}) {
  const id = useId();
  // A `fetch` of its own, not a fetcher: suggestions are a nicety, and a fetcher's load that
  // fails (offline, or its route not yet discovered while offline, which reloads the page)
  // would take the page and what was typed with it (ADR 037).
  const [suggestions, setSuggestions] = useState<string[]>([]);
  const latest = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  return (
    <div className={cn("flex flex-col gap-1.5", hidden && "hidden")}>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
        {required ? null : <span className="font-normal text-muted-foreground"> (optional)</span>}
      </label>
      <input
        ref={inputRef}
        id={id}
        name={name}
        defaultValue={defaultValue}
        maxLength={MUSIC_FIELD_MAX_LENGTH}
        required={required && !hidden}
        autoComplete="off"
        list={`${id}-list`}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={errors?.length ? `${id}-errors` : undefined}
        className={cn(inputClass, errors?.length ? "border-danger" : "border-border")}
        onChange={(event) => {
          const q = event.currentTarget.value;
          if (timer.current) clearTimeout(timer.current);
          if (q.trim().length < 2) return;
          timer.current = setTimeout(async () => {
            const mine = ++latest.current;
            try {
              const response = await fetch(
                `/api/music-suggest?${new URLSearchParams({ field: suggestField, q })}`,
                { headers: { Accept: "application/json" }, credentials: "same-origin" },
              );
              if (!response.ok) return;
              const body = (await response.json()) as { suggestions?: unknown };
              if (mine !== latest.current || !Array.isArray(body.suggestions)) return;
              setSuggestions(body.suggestions.filter((s): s is string => typeof s === "string"));
            } catch {
              // Offline or no answer: the field works without suggestions.
            }
          }, 200);
        }}
      />
      <datalist id={`${id}-list`}>
        {suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      <FieldErrorList id={`${id}-errors`} errors={errors} />
    </div>
  );
}
