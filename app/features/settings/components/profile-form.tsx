import { Check, ImageUp, Trash2 } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Form, useFetcher, useNavigation, useSubmit } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Avatar } from "~/components/ui/avatar";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, FormErrors } from "~/components/ui/field";
import { SectionHeader } from "~/components/ui/section-header";
import { SendStatus } from "~/components/ui/send-status";
import { shownName } from "~/core/person";
import type { FormFailure } from "~/lib/forms";
import { cn } from "~/lib/utils";
import {
  AVATAR_SIDE,
  BIO_MAX_LENGTH,
  DISPLAY_NAME_MAX_LENGTH,
  FAVOURITE_MAX_LENGTH,
  FAVOURITES_MAX_COUNT,
} from "../constants";

/** A refused profile form (ADR 023) with what was typed. */
export interface ProfileFormResult extends FormFailure {
  intent: string;
  values: Record<string, string>;
}

type UsernameCheck = { isAvailable: true } | { isAvailable: false; reason: string };

/**
 * The picture as it will be stored: the largest centred square, at most AVATAR_SIDE pixels,
 * cut in the browser so the upload is small. The server crops and re-encodes again (a
 * browser without canvas, or a file it cannot read, sends the original and the server decides).
 */
async function squareCrop(file: File): Promise<Blob | null> {
  try {
    const bitmap = await createImageBitmap(file);
    const side = Math.min(bitmap.width, bitmap.height);
    const out = Math.min(AVATAR_SIDE, side);
    const canvas = document.createElement("canvas");
    canvas.width = out;
    canvas.height = out;
    const context = canvas.getContext("2d");
    if (!context) return null;
    context.drawImage(
      bitmap,
      (bitmap.width - side) / 2,
      (bitmap.height - side) / 2,
      side,
      side,
      0,
      0,
      out,
      out,
    );
    bitmap.close();
    return await new Promise((resolve) => canvas.toBlob(resolve, "image/webp", 0.8));
  } catch {
    return null;
  }
}

function AvatarForm({
  profile,
  result,
}: {
  profile: { username: string; displayName: string; avatarUrl: string | null };
  result?: ProfileFormResult;
}) {
  const navigation = useNavigation();
  const submit = useSubmit();
  const [preview, setPreview] = useState<{ url: string; blob: Blob } | null>(null);
  const [clientError, setClientError] = useState<string | null>(null);
  const busyIntent = navigation.formData?.get("intent");
  // A picture (or its removal) names what it wants: sent again by itself when the network let
  // it down, with the preview kept meanwhile (ADR 037).
  const upload = useFormResend("avatar");
  const removal = useFormResend("remove-avatar");
  const isAvatarResult = result?.intent === "avatar" || result?.intent === "remove-avatar";
  const errors = clientError
    ? [clientError]
    : isAvatarResult
      ? result?.fieldErrors.avatar
      : undefined;

  useEffect(() => () => (preview ? URL.revokeObjectURL(preview.url) : undefined), [preview]);
  // A saved picture ends the preview; one waiting to be sent keeps it.
  const isUploadWaiting = upload.isWaiting;
  useEffect(() => {
    if (navigation.state === "idle" && !isAvatarResult && !isUploadWaiting) setPreview(null);
  }, [navigation.state, isAvatarResult, isUploadWaiting]);

  return (
    <Card>
      <SectionHeader title="Picture">
        A square picture, shown round. We crop it to the centre, shrink it and remove its metadata
        (such as where it was taken).
      </SectionHeader>
      <Form
        ref={upload.formRef}
        method="post"
        encType="multipart/form-data"
        className="flex flex-wrap items-end gap-4"
        onSubmit={(event) => {
          if (!preview) return;
          // Send the cropped square instead of the original file.
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          form.set("avatar", new File([preview.blob], "avatar.webp", { type: preview.blob.type }));
          submit(form, { method: "post", encType: "multipart/form-data" });
        }}
      >
        <input type="hidden" name="intent" value="avatar" />
        {preview ? (
          <img
            src={preview.url}
            alt="How you will look: the cropped square, not saved yet"
            width={80}
            height={80}
            className="size-20 rounded-full object-cover"
          />
        ) : (
          <Avatar
            name={shownName(profile)}
            username={profile.username}
            src={profile.avatarUrl}
            size="lg"
          />
        )}
        <Field
          label="Choose a picture"
          name="avatar"
          type="file"
          accept="image/*"
          className="min-w-0 flex-1"
          hint="JPEG, PNG, WebP, GIF, AVIF or HEIC, up to 10 MB."
          errors={errors}
          onChange={async (event) => {
            setClientError(null);
            const file = event.currentTarget.files?.[0];
            if (!file) {
              setPreview(null);
              return;
            }
            const blob = await squareCrop(file);
            setPreview(blob ? { url: URL.createObjectURL(blob), blob } : null);
          }}
        />
        <div className="flex flex-wrap items-center gap-2">
          <SendStatus state={upload.state} onRetry={upload.retryNow} verb="save" />
          <Button type="submit" disabled={busyIntent === "avatar"}>
            <ImageUp aria-hidden="true" className="size-4" />
            {busyIntent === "avatar" ? "Uploading…" : "Upload picture"}
          </Button>
        </div>
      </Form>
      {profile.avatarUrl ? (
        <Form
          ref={removal.formRef}
          method="post"
          encType="multipart/form-data"
          className="mt-3 flex flex-wrap items-center gap-2"
        >
          <input type="hidden" name="intent" value="remove-avatar" />
          <Button type="submit" variant="ghost" size="sm" disabled={busyIntent === "remove-avatar"}>
            <Trash2 aria-hidden="true" className="size-4" />
            Remove picture
          </Button>
          <SendStatus state={removal.state} onRetry={removal.retryNow} verb="save" />
        </Form>
      ) : null}
    </Card>
  );
}

function UsernameInput({
  initial,
  current,
  errors,
}: {
  initial: string;
  current: string;
  errors?: string[];
}) {
  const check = useFetcher<{ usernameCheck: UsernameCheck | null }>();
  const [value, setValue] = useState(initial);
  const [checked, setChecked] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const statusId = useId();
  useEffect(() => () => clearTimeout(timer.current), []);

  const isOwn = value.trim().toLowerCase() === current.toLowerCase();
  const answer = checked === value && check.state === "idle" ? check.data?.usernameCheck : null;
  let status: { text: string; isGood: boolean } | null = null;
  if (!isOwn && value.trim()) {
    if (answer?.isAvailable) status = { text: `${value.trim()} is available.`, isGood: true };
    else if (answer) status = { text: answer.reason, isGood: false };
    else status = { text: "Checking…", isGood: true };
  }

  return (
    <div className="flex flex-col gap-1">
      <Field
        label="Username"
        name="username"
        autoComplete="username"
        required
        pattern="[A-Za-z0-9_.]{3,30}"
        hint="3–30 letters, digits, “_” or “.”; your profile lives at /u/username."
        value={value}
        errors={errors}
        aria-errormessage={status && !status.isGood ? statusId : undefined}
        onChange={(event) => {
          const next = event.currentTarget.value;
          setValue(next);
          clearTimeout(timer.current);
          if (next.trim().toLowerCase() === current.toLowerCase() || !next.trim()) return;
          timer.current = setTimeout(() => {
            setChecked(next);
            check.load(`/settings/profile?username=${encodeURIComponent(next.trim())}`);
          }, 300);
        }}
      />
      <p
        id={statusId}
        aria-live="polite"
        className={cn(
          "flex min-h-5 items-center gap-1 text-sm",
          status?.isGood ? "text-muted-foreground" : "text-danger",
        )}
      >
        {status?.isGood && answer?.isAvailable ? (
          <Check aria-hidden="true" className="size-4 text-primary" />
        ) : null}
        {status?.text ?? ""}
      </p>
    </div>
  );
}

function BioInput({ initial, errors }: { initial: string; errors?: string[] }) {
  const [length, setLength] = useState(initial.length);
  const id = useId();
  const left = BIO_MAX_LENGTH - length;
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        Bio
      </label>
      <textarea
        id={id}
        name="bio"
        rows={4}
        defaultValue={initial}
        maxLength={BIO_MAX_LENGTH}
        aria-describedby={`${id}-count${errors?.length ? ` ${id}-errors` : ""}`}
        aria-invalid={errors?.length ? true : undefined}
        onChange={(event) => setLength(event.currentTarget.value.length)}
        className={cn(
          "rounded-lg border bg-background px-3 py-2 text-foreground",
          errors?.length ? "border-danger" : "border-border",
        )}
      />
      <p id={`${id}-count`} className="text-xs text-muted-foreground">
        Plain text; links, @mentions and #tags become links. {left} of {BIO_MAX_LENGTH} characters
        left.
      </p>
      {errors?.length ? (
        <ul id={`${id}-errors`} className="text-sm text-danger">
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

const FAVOURITES_HINT = `Separate them with commas. Up to ${FAVOURITES_MAX_COUNT}, each under ${FAVOURITE_MAX_LENGTH} characters; shown on your profile.`;

/**
 * /settings/profile: picture, display name, username (checked as typed), bio, and favourite
 * artists and genres.
 */
export function ProfileSettingsForm({
  profile,
  result,
}: {
  profile: {
    username: string;
    displayName: string;
    bio: string;
    avatarUrl: string | null;
    favouriteArtists: string[];
    favouriteGenres: string[];
  };
  result?: ProfileFormResult;
}) {
  const navigation = useNavigation();
  const isSaving = navigation.formData?.get("intent") === "profile";
  // A save the network let down keeps what was typed, says so, and goes again (ADR 037).
  const save = useFormResend("profile");
  const refused = result?.intent === "profile" ? result : undefined;
  const values = refused?.values;
  return (
    <div className="flex flex-col gap-6">
      <AvatarForm profile={profile} result={result} />
      <Card>
        <SectionHeader title="Profile">
          How people see you on your profile, your posts and your comments.
        </SectionHeader>
        <Form ref={save.formRef} method="post" className="flex flex-col gap-4" noValidate>
          <input type="hidden" name="intent" value="profile" />
          <FormErrors message={refused?.message} />
          <Field
            label="Display name"
            name="displayName"
            autoComplete="name"
            required
            maxLength={DISPLAY_NAME_MAX_LENGTH}
            defaultValue={values?.displayName ?? profile.displayName}
            errors={refused?.fieldErrors.displayName}
          />
          <UsernameInput
            initial={values?.username ?? profile.username}
            current={profile.username}
            errors={refused?.fieldErrors.username}
          />
          <BioInput initial={values?.bio ?? profile.bio} errors={refused?.fieldErrors.bio} />
          <Field
            label="Favourite artists"
            name="favouriteArtists"
            hint={FAVOURITES_HINT}
            maxLength={FAVOURITES_MAX_COUNT * (FAVOURITE_MAX_LENGTH + 2)}
            defaultValue={values?.favouriteArtists ?? profile.favouriteArtists.join(", ")}
            errors={refused?.fieldErrors.favouriteArtists}
          />
          <Field
            label="Favourite genres"
            name="favouriteGenres"
            hint={FAVOURITES_HINT}
            maxLength={FAVOURITES_MAX_COUNT * (FAVOURITE_MAX_LENGTH + 2)}
            defaultValue={values?.favouriteGenres ?? profile.favouriteGenres.join(", ")}
            errors={refused?.fieldErrors.favouriteGenres}
          />
          <div className="flex flex-wrap items-center gap-2">
            <Button type="submit" disabled={isSaving}>
              {isSaving ? "Saving…" : "Save profile"}
            </Button>
            <SendStatus state={save.state} onRetry={save.retryNow} verb="save" />
          </div>
        </Form>
      </Card>
    </div>
  );
}
