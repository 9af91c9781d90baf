import { useEffect, useId, useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import { Button, buttonClasses } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import type { JourneyAudience } from "~/db/schema";
import { AUDIENCE_LABELS, AUDIENCES } from "~/features/posts";
import type { FormFailure } from "~/lib/forms";
import type { Chapter } from "../chapters.server";
import { periodSearch, type ResolvedPeriod } from "../period-labels";
import { formatDay } from "./format";

export interface RecapResult extends FormFailure {
  values: Record<string, string>;
}

type Preview =
  | { state: "idle" }
  | { state: "loading" }
  | { state: "ready"; src: string }
  | { state: "error"; message: string };

/** The query of the card the person chose: this period, or one chapter (`chapter:<id>`). */
function recapParams(
  choice: string,
  period: Pick<ResolvedPeriod, "period" | "from" | "to">,
): URLSearchParams {
  if (choice.startsWith("chapter:")) return new URLSearchParams({ chapter: choice.slice(8) });
  const params = new URLSearchParams({ period: period.period });
  if (period.period === "custom") {
    params.set("from", period.from);
    params.set("to", period.to);
  }
  return params;
}

/**
 * "Recap card" on the journey page: choose the period (the one shown, or a chapter), make the
 * card (drawn on the server), see it, download it, and for the owner post it to the feed with
 * an audience (the journey's own by default) and a short note.
 */
export function RecapCardPanel({
  basePath,
  ownerName,
  isOwner,
  enabled,
  audience,
  period,
  chapters,
  result,
}: {
  basePath: string;
  ownerName: string;
  isOwner: boolean;
  enabled: boolean;
  audience: JourneyAudience;
  period: Pick<ResolvedPeriod, "period" | "from" | "to" | "label">;
  chapters: Chapter[];
  result?: RecapResult;
}) {
  const id = useId();
  const navigation = useNavigation();
  const refused = result?.values.intent === "recap-post" ? result : undefined;
  const [choice, setChoice] = useState(refused?.values.recapChoice ?? "period");
  const [preview, setPreview] = useState<Preview>({ state: "idle" });
  const params = recapParams(choice, period);
  const src = `${basePath}/recap.png?${params.toString()}`;
  const periodKey = `${period.period}|${period.from}|${period.to}`;

  // A new period on the page (or another choice) is another card: the old preview goes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: periodKey and choice are the triggers
  useEffect(() => {
    setPreview((p) => {
      if (p.state === "ready") URL.revokeObjectURL(p.src);
      return { state: "idle" };
    });
  }, [periodKey, choice]);

  if (!enabled) {
    if (!isOwner) return null;
    return (
      <section aria-labelledby={`${id}-heading`} id="recap">
        <h2 id={`${id}-heading`} className="mb-1 font-semibold">
          Recap card
        </h2>
        <p role="status" className="rounded-lg border border-border p-3 text-sm">
          Recap cards are turned off, so nobody (you included) can make one.{" "}
          <Link to="/settings/privacy#journey" className="font-medium text-primary hover:underline">
            Turn them on in Settings › Privacy
          </Link>
          .
        </p>
      </section>
    );
  }

  async function makeCard() {
    setPreview({ state: "loading" });
    try {
      const response = await fetch(src);
      if (!response.ok) {
        const text = (await response.text()).slice(0, 300);
        setPreview({ state: "error", message: text || "The card could not be made. Try again." });
        return;
      }
      const blob = await response.blob();
      setPreview({ state: "ready", src: URL.createObjectURL(blob) });
    } catch {
      setPreview({
        state: "error",
        message: "The card could not be made: check your connection and try again.",
      });
    }
  }

  const choiceLabel = choice.startsWith("chapter:")
    ? (() => {
        const index = chapters.findIndex((c) => `chapter:${c.id}` === choice);
        const chapter = chapters[index];
        return chapter ? chapter.title || `Chapter ${index + 1}` : "Chapter";
      })()
    : period.label;
  const isPosting =
    navigation.state !== "idle" && navigation.formData?.get("intent") === "recap-post";

  return (
    <section aria-labelledby={`${id}-heading`} id="recap" className="flex flex-col gap-3">
      <div>
        <h2 id={`${id}-heading`} className="font-semibold">
          Recap card
        </h2>
        <p className="text-sm text-muted-foreground">
          A picture of {isOwner ? "your listening" : `${ownerName}'s listening`}: plays, time, top
          artists and tracks.
          {isOwner ? " Artists you hid are left out, whoever sees it." : ""}
        </p>
      </div>
      <div className="flex flex-wrap items-end gap-3">
        {chapters.length > 0 ? (
          <div className="flex w-full max-w-md min-w-0 flex-col gap-1">
            <label htmlFor={`${id}-choice`} className="text-sm font-medium">
              Card for
            </label>
            <select
              id={`${id}-choice`}
              value={choice}
              onChange={(event) => setChoice(event.target.value)}
              className="h-10 w-full min-w-0 rounded-lg border border-border bg-background px-3 text-foreground"
            >
              <option value="period">This period: {period.label}</option>
              {chapters.map((chapter, i) => (
                <option key={chapter.id} value={`chapter:${chapter.id}`}>
                  {chapter.title || `Chapter ${i + 1}`} ({formatDay(chapter.startsOn)} to{" "}
                  {formatDay(chapter.endsOn)})
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <Button
          variant={preview.state === "ready" ? "secondary" : "primary"}
          onClick={makeCard}
          disabled={preview.state === "loading"}
        >
          {preview.state === "loading" ? "Making the card…" : "Make recap card"}
        </Button>
      </div>
      <div aria-live="polite" className="flex flex-col gap-3">
        {preview.state === "error" ? (
          <p role="alert" className="text-sm text-danger">
            {preview.message}
          </p>
        ) : null}
        {preview.state === "ready" ? (
          <>
            <img
              src={preview.src}
              width={1080}
              height={1350}
              alt={`Recap card: ${choiceLabel}, ${ownerName}'s plays, listening time, top artists and top tracks`}
              className="h-auto w-full max-w-xs rounded-lg border border-border"
            />
            <p>
              <a
                href={`${src}&download=1`}
                download
                className={buttonClasses("secondary", "md", "self-start")}
              >
                Download PNG
              </a>
            </p>
          </>
        ) : null}
      </div>
      {isOwner && (preview.state === "ready" || refused) ? (
        <Form
          method="post"
          action={`${basePath}${periodSearch(period)}`}
          className="flex max-w-md flex-col gap-3 rounded-lg border border-border p-3"
          aria-label="Post the recap card to the feed"
        >
          <input type="hidden" name="intent" value="recap-post" />
          <input type="hidden" name="recapChoice" value={choice} />
          {[...params.entries()].map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <FormErrors message={refused?.message} />
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-audience`} className="text-sm font-medium">
              Who can see the post
            </label>
            <select
              id={`${id}-audience`}
              name="audience"
              defaultValue={refused?.values.audience || audience}
              aria-invalid={Boolean(refused?.fieldErrors.audience) || undefined}
              aria-describedby={refused?.fieldErrors.audience ? `${id}-audience-errors` : undefined}
              className="h-10 rounded-lg border border-border bg-background px-3 text-foreground"
            >
              {AUDIENCES.map((a) => (
                <option key={a} value={a}>
                  {AUDIENCE_LABELS[a]}
                </option>
              ))}
            </select>
            {refused?.fieldErrors.audience ? (
              <p id={`${id}-audience-errors`} className="text-sm text-danger">
                {refused.fieldErrors.audience.join(" ")}
              </p>
            ) : null}
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-note`} className="text-sm font-medium">
              Note (optional)
            </label>
            <textarea
              id={`${id}-note`}
              name="note"
              rows={2}
              maxLength={2000}
              defaultValue={refused?.values.note ?? ""}
              aria-invalid={Boolean(refused?.fieldErrors.note) || undefined}
              aria-describedby={refused?.fieldErrors.note ? `${id}-note-errors` : undefined}
              className="rounded-lg border border-border bg-background px-3 py-2 text-foreground"
            />
            {refused?.fieldErrors.note ? (
              <p id={`${id}-note-errors`} className="text-sm text-danger">
                {refused.fieldErrors.note.join(" ")}
              </p>
            ) : null}
          </div>
          <Button type="submit" className="self-start" disabled={isPosting}>
            {isPosting ? "Posting…" : "Post to feed"}
          </Button>
        </Form>
      ) : null}
    </section>
  );
}
