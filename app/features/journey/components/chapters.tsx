import { useId } from "react";
import { Form } from "react-router";
import { Button } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import type { FormFailure } from "~/lib/forms";
import type { Chapter } from "../chapters.server";
import { formatDay } from "./format";

export interface ChapterResult extends FormFailure {
  values: Record<string, string>;
}

function ChapterForm({ chapter, result }: { chapter: Chapter; result?: ChapterResult }) {
  const id = useId();
  const refused = result?.values.chapterId === chapter.id ? result : undefined;
  return (
    <details className="mt-2 text-sm" open={Boolean(refused)}>
      <summary className="cursor-pointer font-medium text-primary">
        {chapter.title || chapter.note ? "Edit title and note" : "Give it a title and a note"}
      </summary>
      <Form method="post" className="mt-2 flex flex-col gap-3" noValidate>
        <input type="hidden" name="intent" value="chapter" />
        <input type="hidden" name="chapterId" value={chapter.id} />
        <FormErrors
          message={
            [refused?.message, ...(refused?.fieldErrors.chapterId ?? [])]
              .filter(Boolean)
              .join(" ") || undefined
          }
        />
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-title`} className="font-medium">
            Title
          </label>
          <input
            id={`${id}-title`}
            name="title"
            maxLength={80}
            defaultValue={refused?.values.title ?? chapter.title ?? ""}
            aria-invalid={Boolean(refused?.fieldErrors.title) || undefined}
            aria-describedby={refused?.fieldErrors.title ? `${id}-title-errors` : undefined}
            className="h-10 rounded-lg border border-border bg-background px-3 text-foreground"
          />
          {refused?.fieldErrors.title ? (
            <p id={`${id}-title-errors`} className="text-danger">
              {refused.fieldErrors.title.join(" ")}
            </p>
          ) : null}
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-note`} className="font-medium">
            Note
          </label>
          <textarea
            id={`${id}-note`}
            name="note"
            maxLength={1000}
            rows={3}
            defaultValue={refused?.values.note ?? chapter.note ?? ""}
            aria-invalid={Boolean(refused?.fieldErrors.note) || undefined}
            aria-describedby={refused?.fieldErrors.note ? `${id}-note-errors` : undefined}
            className="rounded-lg border border-border bg-background px-3 py-2 text-foreground"
          />
          {refused?.fieldErrors.note ? (
            <p id={`${id}-note-errors`} className="text-danger">
              {refused.fieldErrors.note.join(" ")}
            </p>
          ) : null}
        </div>
        <Button type="submit" size="sm" className="self-start">
          Save chapter
        </Button>
      </Form>
    </details>
  );
}

/** The journey's chapters: when taste shifted, with the owner's titles and notes. */
export function Chapters({
  chapters,
  isOwner,
  result,
}: {
  chapters: Chapter[];
  isOwner: boolean;
  result?: ChapterResult;
}) {
  return (
    <section aria-labelledby="chapters-heading" id="chapters">
      <h2 id="chapters-heading" className="mb-1 font-semibold">
        Chapters
      </h2>
      <p className="mb-3 text-sm text-muted-foreground">
        A new chapter starts in a month whose artists differ clearly from the month before (over all
        time, whatever the period above).
      </p>
      <ol className="flex flex-col gap-3">
        {chapters.map((chapter, i) => (
          <li key={chapter.id} className="rounded-lg border border-border p-3">
            <h3 className="font-medium break-words">{chapter.title || `Chapter ${i + 1}`}</h3>
            <p className="text-sm text-muted-foreground">
              {formatDay(chapter.startsOn)} to {formatDay(chapter.endsOn)}
            </p>
            {chapter.note ? (
              <p className="mt-1 text-sm whitespace-pre-line break-words">{chapter.note}</p>
            ) : null}
            {isOwner ? <ChapterForm chapter={chapter} result={result} /> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
