import { useCallback, useEffect, useId, useRef, useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import { useResend } from "~/components/hooks/use-resend";
import { Button, ButtonLink } from "~/components/ui/button";
import { FieldErrorList, FormErrors } from "~/components/ui/field";
import { Icon } from "~/components/ui/icon";
import { SendStatus } from "~/components/ui/send-status";
import { IMAGE_MAX_BYTES } from "~/features/media";
import { clearDraft, draftKey, readDraft, writeDraft } from "~/lib/drafts";
import type { FormFailure } from "~/lib/forms";
import { type NetworkFailure, newClientId } from "~/lib/resilient-send";
import { cn } from "~/lib/utils";
import {
  AUDIENCE_LABELS,
  AUDIENCES,
  COMPOSER_KINDS,
  KIND_LABELS,
  MOODS,
  NOTE_MAX_LENGTH,
  POST_KINDS,
  type PostKind,
} from "../constants";
import { inputClass, MusicField } from "./composer-fields";
import { useComposerFold } from "./use-composer-fold";

export interface ComposerValues {
  kind?: string;
  title?: string;
  artist?: string;
  album?: string;
  linkUrl?: string;
  note?: string;
  mood?: string;
  audience?: string;
}

const DRAFT_FIELDS = [
  "kind",
  "title",
  "artist",
  "album",
  "linkUrl",
  "note",
  "mood",
  "audience",
  "clientId",
] as const;
type PostDraft = Record<(typeof DRAFT_FIELDS)[number], string>;

/** The new post's draft on this device, with its id (ADR 037); null when there is none. */
function readPostDraft(): Partial<PostDraft> | null {
  const draft = readDraft<PostDraft>(draftKey("post", "new"), DRAFT_FIELDS);
  if (!draft) return null;
  const clean: Partial<PostDraft> = {};
  for (const field of DRAFT_FIELDS) {
    const value = draft[field];
    if (typeof value === "string") clean[field] = value;
  }
  return clean;
}

const TITLE_LABELS: Record<PostKind, string> = {
  track: "Track title",
  album: "Album title",
  artist: "Artist name",
  playlist: "Playlist name",
  recap: "Title",
};

/**
 * The composer: what the post is about (track, album, artist or playlist, with autocomplete),
 * a streaming link, a note, a mood, an image and the audience. Used to create and to edit.
 * Press "n" anywhere on the page (outside a field) to start typing.
 */
export function Composer({
  action,
  failure,
  values,
  mode = "create",
  currentImage,
  withShortcut = mode === "create",
  initiallyExpanded = true,
  expandHref,
  defaultAudience = "everyone",
  cancelHref,
  networkFailure = null,
}: {
  action: string;
  /** The server's refusal of the last submission (ADR 023), shown in place. */
  failure?: FormFailure;
  values?: ComposerValues;
  mode?: "create" | "edit";
  currentImage?: { id: string; width: number; height: number } | null;
  withShortcut?: boolean;
  /** When false the composer starts as a one-line prompt that opens on click or "n". */
  initiallyExpanded?: boolean;
  /** Where the prompt links to without JavaScript (a page that renders the composer open). */
  expandHref?: string;
  /** The audience a new post starts with: the author's choice in privacy settings. */
  defaultAudience?: string;
  /** Where Cancel leads when the composer is a page of its own (editing a post). */
  cancelHref?: string;
  /** The last send never reached the server: say so and send it again (ADR 037). */
  networkFailure?: NetworkFailure | null;
}) {
  const id = useId();
  const errors = failure?.fieldErrors;
  const navigation = useNavigation();
  const initialKind = POST_KINDS.includes(values?.kind as PostKind)
    ? (values?.kind as PostKind)
    : "track";
  const [kind, setKind] = useState<PostKind>(initialKind);
  /** The kinds to pick from; a post edited from elsewhere (a recap) keeps its own kind on offer. */
  const kinds: readonly PostKind[] = (COMPOSER_KINDS as readonly PostKind[]).includes(initialKind)
    ? COMPOSER_KINDS
    : [...COMPOSER_KINDS, initialKind];
  const [noteLength, setNoteLength] = useState(values?.note?.length ?? 0);
  const [imageError, setImageError] = useState<string | null>(null);
  /** Only a create composer that can start folded folds away again; editing has its own page. */
  const canFold = mode === "create";
  const {
    expanded,
    isMounted,
    hasDraft,
    setHasDraft,
    startFreshDraft,
    fold,
    openAndFocusTitle,
    promptRef,
    formRef,
    titleRef,
  } = useComposerFold({
    initiallyExpanded: initiallyExpanded || Boolean(errors),
    hasErrors: Boolean(errors),
    withShortcut,
  });
  const isSubmitting =
    navigation.state !== "idle" &&
    navigation.formMethod === "POST" &&
    navigation.formAction === action;

  // A new post's id, chosen here (its idempotency key, ADR 037), and its draft on this device.
  const isCreate = mode === "create";
  const [clientId, setClientId] = useState(newClientId);
  const [draftValues, setDraftValues] = useState<ComposerValues | null>(null);
  const [formVersion, setFormVersion] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on the client, after load.
  useEffect(() => {
    if (!isCreate || errors) return;
    const draft = readPostDraft();
    if (!draft || !(draft.title || draft.note || draft.artist || draft.linkUrl)) return;
    if (draft.clientId) setClientId(draft.clientId);
    setDraftValues(draft);
    if (POST_KINDS.includes(draft.kind as PostKind)) setKind(draft.kind as PostKind);
    setNoteLength(draft.note?.length ?? 0);
    setHasDraft(true);
    // The form takes the draft as its values (it may be on the page already).
    setFormVersion((v) => v + 1);
  }, []);
  const saveDraft = useCallback(() => {
    const form = formRef.current;
    if (!isCreate || !form) return;
    const data = new FormData(form);
    const draft: Record<string, string> = {};
    for (const field of DRAFT_FIELDS) {
      const value = data.get(field);
      if (typeof value === "string") draft[field] = value;
    }
    if (
      [draft.title, draft.artist, draft.album, draft.linkUrl, draft.note].some((v) => v?.trim())
    ) {
      writeDraft(draftKey("post", "new"), draft);
    } else clearDraft(draftKey("post", "new"));
  }, [isCreate, formRef]);

  // A send the network let down: say so, keep everything, send it again by itself.
  const resend = useResend(isCreate ? networkFailure : null, () =>
    formRef.current?.requestSubmit(),
  );

  // After a successful post the page reloads its data with no errors: start a fresh draft, and
  // the focus goes to the new post (or back to the composer), not to the page's <body>.
  const wasSubmitting = useRef(false);
  const clientIdRef = useRef(clientId);
  clientIdRef.current = clientId;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the refs (from useComposerFold) are stable.
  useEffect(() => {
    if (isSubmitting) {
      wasSubmitting.current = true;
      return;
    }
    if (wasSubmitting.current && isCreate && !errors && !networkFailure) {
      const posted = clientIdRef.current;
      clearDraft(draftKey("post", "new"));
      setClientId(newClientId());
      setDraftValues(null);
      startFreshDraft(!initiallyExpanded);
      setKind("track");
      setNoteLength(0);
      setImageError(null);
      const card = document.getElementById(`post-${posted}`);
      if (card) {
        card.setAttribute("tabindex", "-1");
        card.focus();
      } else if (initiallyExpanded) titleRef.current?.focus();
      else promptRef.current?.focus();
    }
    wasSubmitting.current = false;
  }, [isSubmitting, errors, networkFailure, isCreate, initiallyExpanded, startFreshDraft]);

  const imageErrors = [...(errors?.image ?? []), ...(imageError ? [imageError] : [])];
  const field = (name: string) => errors?.[name];
  const shortcutHint = withShortcut ? (
    <p className="hidden text-xs text-muted-foreground sm:block pointer-coarse:hidden! [@media(hover:none)]:hidden!">
      Press <kbd className="rounded border border-border bg-muted px-1.5 font-mono">n</kbd> to start
      a post
    </p>
  ) : null;

  const prompt = expanded ? null : (
    <div className="flex flex-col gap-2 rounded-xl border border-border bg-card p-4 shadow-sm sm:flex-row sm:items-center sm:gap-4">
      <Link
        ref={promptRef}
        to={expandHref ?? "?compose=1"}
        // This page itself, composer open: nothing to discover.
        discover="none"
        onClick={(event) => {
          event.preventDefault();
          openAndFocusTitle();
        }}
        className="flex h-11 flex-1 items-center gap-2 rounded-lg border border-border bg-background px-3 text-muted-foreground hover:border-primary"
      >
        <Icon name="send" className="size-4" />
        {hasDraft ? "Continue your post…" : "Share some music…"}
      </Link>
      {shortcutHint}
    </div>
  );

  if (!isMounted) return <div id="composer">{prompt}</div>;
  const shownValues = draftValues ?? values;

  return (
    <div id="composer">
      {prompt}
      <Form
        key={formVersion}
        ref={formRef}
        hidden={!expanded}
        onInput={saveDraft}
        onChange={saveDraft}
        onKeyDown={(event) => {
          // Escape folds the composer away; what was typed stays for "Continue your post…".
          if (event.key === "Escape" && canFold && !event.defaultPrevented) {
            event.preventDefault();
            fold();
          }
        }}
        method="post"
        action={action}
        encType="multipart/form-data"
        aria-labelledby={`${id}-heading`}
        className="flex flex-col gap-4 rounded-xl border border-border bg-card p-4 shadow-sm sm:p-5"
      >
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id={`${id}-heading`} className="text-lg font-semibold">
            {mode === "create" ? "Share some music" : "Edit your post"}
          </h2>
          {withShortcut ? (
            <p className="text-xs text-muted-foreground pointer-coarse:hidden [@media(hover:none)]:hidden">
              Press <kbd className="rounded border border-border bg-muted px-1.5 font-mono">n</kbd>{" "}
              to start a post
            </p>
          ) : null}
        </div>
        <input
          type="hidden"
          name="intent"
          value={mode === "create" ? "create-post" : "update-post"}
        />
        {isCreate ? <input type="hidden" name="clientId" value={clientId} /> : null}
        <FormErrors message={failure?.message} />

        <fieldset>
          <legend className="mb-1.5 text-sm font-medium">This post is about</legend>
          <div className="flex flex-wrap gap-2">
            {kinds.map((k) => (
              <label
                key={k}
                className="inline-flex cursor-pointer items-center gap-2 rounded-full border border-border px-3 py-1.5 text-sm has-[:checked]:border-primary has-[:checked]:bg-accent has-[:checked]:text-accent-foreground has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-ring"
              >
                <input
                  type="radio"
                  name="kind"
                  value={k}
                  defaultChecked={k === kind}
                  onChange={() => setKind(k)}
                  className="accent-primary"
                />
                {KIND_LABELS[k]}
              </label>
            ))}
          </div>
          <FieldErrorList id={`${id}-kind-errors`} errors={field("kind")} />
        </fieldset>

        <div className="grid gap-4 sm:grid-cols-2">
          <MusicField
            name="title"
            label={TITLE_LABELS[kind]}
            defaultValue={shownValues?.title}
            errors={field("title")}
            required
            suggestField={kind === "artist" ? "artist" : kind === "album" ? "album" : "title"}
            inputRef={titleRef}
          />
          <MusicField
            name="artist"
            label={kind === "playlist" ? "Curated by / artist" : "Artist"}
            defaultValue={shownValues?.artist}
            errors={field("artist")}
            hidden={kind === "artist"}
            required={kind === "track" || kind === "album"}
            suggestField="artist"
          />
          <MusicField
            name="album"
            label="Album"
            defaultValue={shownValues?.album}
            errors={field("album")}
            hidden={kind !== "track"}
            suggestField="album"
          />
          <div className="flex flex-col gap-1.5">
            <label htmlFor={`${id}-link`} className="text-sm font-medium">
              Streaming link <span className="font-normal text-muted-foreground">(optional)</span>
            </label>
            <input
              id={`${id}-link`}
              name="linkUrl"
              type="url"
              inputMode="url"
              defaultValue={shownValues?.linkUrl}
              placeholder="https://open.spotify.com/track/…"
              aria-invalid={field("linkUrl")?.length ? true : undefined}
              aria-describedby={`${id}-link-hint${field("linkUrl")?.length ? ` ${id}-link-errors` : ""}`}
              className={cn(
                inputClass,
                field("linkUrl")?.length ? "border-danger" : "border-border",
              )}
            />
            <p id={`${id}-link-hint`} className="text-xs text-muted-foreground">
              Spotify, Apple Music, YouTube, SoundCloud, Bandcamp, Deezer or Tidal links show a
              player.
            </p>
            <FieldErrorList id={`${id}-link-errors`} errors={field("linkUrl")} />
          </div>
        </div>

        <div className="flex flex-col gap-1.5">
          <label htmlFor={`${id}-note`} className="text-sm font-medium">
            Note <span className="font-normal text-muted-foreground">(optional)</span>
          </label>
          <textarea
            id={`${id}-note`}
            name="note"
            rows={3}
            maxLength={NOTE_MAX_LENGTH}
            defaultValue={shownValues?.note}
            placeholder="Why this one? Mention friends with @username, add #tags."
            onChange={(event) => setNoteLength(event.currentTarget.value.length)}
            aria-invalid={field("note")?.length ? true : undefined}
            aria-describedby={`${id}-note-count${field("note")?.length ? ` ${id}-note-errors` : ""}`}
            className={cn(
              "rounded-lg border bg-background px-3 py-2 text-foreground",
              field("note")?.length ? "border-danger" : "border-border",
            )}
          />
          <p id={`${id}-note-count`} className="text-right text-xs text-muted-foreground">
            {noteLength.toLocaleString("en")} / {NOTE_MAX_LENGTH.toLocaleString("en")} characters
          </p>
          <FieldErrorList id={`${id}-note-errors`} errors={field("note")} />
        </div>

        <div className="grid gap-4 sm:grid-cols-2">
          <div className="flex flex-col gap-1.5">
            <label htmlFor={`${id}-mood`} className="text-sm font-medium">
              Mood <span className="font-normal text-muted-foreground">(optional)</span>
            </label>
            <select
              id={`${id}-mood`}
              name="mood"
              defaultValue={shownValues?.mood ?? ""}
              className={cn(inputClass, "border-border")}
            >
              <option value="">No mood</option>
              {MOODS.map((m) => (
                <option key={m.key} value={m.key}>
                  {m.emoji} {m.label}
                </option>
              ))}
            </select>
            <FieldErrorList id={`${id}-mood-errors`} errors={field("mood")} />
          </div>
          <div className="flex flex-col gap-1.5">
            <label htmlFor={`${id}-audience`} className="text-sm font-medium">
              Who can see it
            </label>
            <select
              id={`${id}-audience`}
              name="audience"
              defaultValue={shownValues?.audience || defaultAudience}
              className={cn(inputClass, "border-border")}
            >
              {AUDIENCES.map((a) => (
                <option key={a} value={a}>
                  {AUDIENCE_LABELS[a]}
                </option>
              ))}
            </select>
            <FieldErrorList id={`${id}-audience-errors`} errors={field("audience")} />
          </div>
        </div>

        <div>
          <div className="flex flex-col gap-1.5">
            <label htmlFor={`${id}-image`} className="text-sm font-medium">
              {currentImage ? "Replace image" : "Image"}{" "}
              <span className="font-normal text-muted-foreground">(optional)</span>
            </label>
            <div className="relative">
              <Icon
                name="image-plus"
                className="pointer-events-none absolute top-2.5 left-3 size-5 text-muted-foreground"
              />
              <input
                id={`${id}-image`}
                name="image"
                type="file"
                accept="image/*"
                aria-invalid={imageErrors.length ? true : undefined}
                aria-describedby={`${id}-image-hint${imageErrors.length ? ` ${id}-image-errors` : ""}`}
                onChange={(event) => {
                  const file = event.currentTarget.files?.[0];
                  if (file && file.size > IMAGE_MAX_BYTES) {
                    setImageError("Images can be at most 10 MB. Choose a smaller one.");
                    event.currentTarget.value = "";
                  } else {
                    setImageError(null);
                  }
                }}
                className={cn(
                  "w-full rounded-lg border bg-background py-2 pr-2 pl-10 text-sm file:mr-2 file:rounded-md file:border-0 file:bg-muted file:px-2 file:py-1 file:text-foreground",
                  imageErrors.length ? "border-danger" : "border-border",
                )}
              />
            </div>
            <p id={`${id}-image-hint`} className="text-xs text-muted-foreground">
              JPEG, PNG, WebP, GIF, AVIF or HEIC, up to 10 MB.
            </p>
            <FieldErrorList id={`${id}-image-errors`} errors={imageErrors} />
          </div>
        </div>

        {currentImage ? (
          <div className="flex items-center gap-3">
            <img
              src={`/media/${currentImage.id}`}
              alt="Attached to this post now"
              width={currentImage.width}
              height={currentImage.height}
              className="h-auto max-h-16 w-auto max-w-full rounded-md border border-border"
            />
            <label className="inline-flex items-center gap-2 text-sm">
              <input type="checkbox" name="removeImage" value="1" className="accent-primary" />
              Remove this image
            </label>
          </div>
        ) : null}

        <div className="flex flex-wrap justify-end gap-2">
          {canFold ? (
            <Button type="button" variant="ghost" onClick={fold}>
              Cancel
            </Button>
          ) : cancelHref ? (
            <ButtonLink to={cancelHref} variant="ghost">
              Cancel
            </ButtonLink>
          ) : null}
          {isCreate && networkFailure ? (
            <SendStatus state={resend.state} onRetry={resend.retryNow} className="mr-auto" />
          ) : null}
          <Button type="submit" disabled={isSubmitting}>
            <Icon name="send" className="size-4" />
            {isSubmitting ? "Sharing…" : mode === "create" ? "Share" : "Save changes"}
          </Button>
        </div>
      </Form>
    </div>
  );
}
