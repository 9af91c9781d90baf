import { useId } from "react";
import { Form, Link, useNavigation } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { FieldErrorList, FormErrors } from "~/components/ui/field";
import { SectionHeader } from "~/components/ui/section-header";
import { SendStatus } from "~/components/ui/send-status";
import {
  JOURNEY_AUDIENCE_CHOICES,
  JOURNEY_AUDIENCE_HINTS,
  JOURNEY_AUDIENCE_LABELS,
} from "~/features/journey";
import type { JourneyPrivacy } from "../privacy.server";
import type { PrivacyFormResult } from "./privacy-form";

function Toggle({
  name,
  label,
  hint,
  defaultChecked,
}: {
  name: string;
  label: string;
  hint: string;
  defaultChecked: boolean;
}) {
  const id = useId();
  return (
    <div className="flex items-start gap-3">
      <input
        id={id}
        type="checkbox"
        name={name}
        defaultChecked={defaultChecked}
        aria-describedby={`${id}-hint`}
        className="mt-1 size-4 accent-[var(--primary)]"
      />
      <div>
        <label htmlFor={id} className="font-medium">
          {label}
        </label>
        <p id={`${id}-hint`} className="text-sm text-muted-foreground">
          {hint}
        </p>
      </div>
    </div>
  );
}

/** Who sees the journey, artists left out of it, "now playing" and recaps: one form. */
export function JourneyPrivacyForm({
  settings,
  result,
}: {
  settings: JourneyPrivacy;
  result?: PrivacyFormResult;
}) {
  const navigation = useNavigation();
  const isSaving = navigation.formData?.get("intent") === "journey";
  // Both name the state wanted: a save the network let down goes again (ADR 037).
  const save = useFormResend("journey");
  const unhide = useFormResend("journey-unhide");
  const refused = result?.intent === "journey" ? result : undefined;
  const id = useId();
  const audience = refused?.values.journeyAudience ?? settings.audience;
  return (
    <Card id="journey">
      <SectionHeader title="Journey">
        Your listening history on your profile: top artists, charts and streaks.{" "}
        <Link to="/profile" className="font-medium text-primary hover:underline">
          See your journey
        </Link>
      </SectionHeader>
      <Form ref={save.formRef} method="post" className="flex flex-col gap-6" noValidate>
        <input type="hidden" name="intent" value="journey" />
        <FormErrors message={refused?.message} />
        <fieldset
          className="flex flex-col gap-2"
          aria-describedby={
            refused?.fieldErrors.journeyAudience ? `${id}-audience-errors` : undefined
          }
        >
          <legend className="mb-1 font-semibold">Who sees your journey</legend>
          {JOURNEY_AUDIENCE_CHOICES.map((a) => {
            const choiceId = `${id}-audience-${a}`;
            return (
              <div key={a} className="flex items-start gap-3 rounded-lg border border-border p-3">
                <input
                  id={choiceId}
                  type="radio"
                  name="journeyAudience"
                  value={a}
                  defaultChecked={audience === a}
                  aria-describedby={`${choiceId}-hint`}
                  className="mt-1 size-4 accent-[var(--primary)]"
                />
                <div>
                  <label htmlFor={choiceId} className="font-medium">
                    {JOURNEY_AUDIENCE_LABELS[a]}
                  </label>
                  <p id={`${choiceId}-hint`} className="text-sm text-muted-foreground">
                    {JOURNEY_AUDIENCE_HINTS[a]}
                  </p>
                </div>
              </div>
            );
          })}
          <FieldErrorList
            id={`${id}-audience-errors`}
            errors={refused?.fieldErrors.journeyAudience}
          />
        </fieldset>

        <fieldset className="flex flex-col gap-3">
          <legend className="mb-1 font-semibold">Hidden artists</legend>
          <p className="text-sm text-muted-foreground">
            Others never see these artists in your journey (not in top lists, charts, streaks or
            taste matches). You still do.
          </p>
          {settings.hidden.length === 0 ? (
            <p className="text-sm">No artists hidden.</p>
          ) : (
            <ul aria-label="Hidden artists" className="flex flex-wrap gap-2">
              {settings.hidden.map((artist) => (
                <li
                  key={artist.key}
                  className="flex items-center gap-2 rounded-full border border-border py-1 pr-1 pl-3 text-sm"
                >
                  <input type="hidden" name="hiddenArtist" value={artist.key} />
                  <span className="break-all">{artist.name}</span>
                  <Button
                    type="submit"
                    form={`${id}-unhide`}
                    name="artistKey"
                    value={artist.key}
                    variant="ghost"
                    size="sm"
                    aria-label={`Stop hiding ${artist.name}`}
                  >
                    Remove
                  </Button>
                </li>
              ))}
            </ul>
          )}
          <div className="flex flex-col gap-1.5">
            <label htmlFor={`${id}-add`} className="text-sm font-medium">
              Hide an artist
            </label>
            <input
              id={`${id}-add`}
              name="addArtist"
              list={`${id}-suggestions`}
              maxLength={512}
              autoComplete="off"
              defaultValue={refused?.values.addArtist ?? ""}
              aria-describedby={[
                `${id}-add-hint`,
                refused?.fieldErrors.addArtist || refused?.fieldErrors.hiddenArtists
                  ? `${id}-add-errors`
                  : "",
              ]
                .filter(Boolean)
                .join(" ")}
              aria-invalid={
                Boolean(refused?.fieldErrors.addArtist || refused?.fieldErrors.hiddenArtists) ||
                undefined
              }
              className="h-10 rounded-lg border border-border bg-background px-3 text-foreground"
            />
            <datalist id={`${id}-suggestions`}>
              {settings.suggestions.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
            <p id={`${id}-add-hint`} className="text-xs text-muted-foreground">
              Type a name or pick one of your most played artists; it is hidden when you save.
            </p>
            <FieldErrorList
              id={`${id}-add-errors`}
              errors={[
                ...(refused?.fieldErrors.addArtist ?? []),
                ...(refused?.fieldErrors.hiddenArtists ?? []),
              ]}
            />
          </div>
        </fieldset>

        <fieldset className="flex flex-col gap-3">
          <legend className="mb-1 font-semibold">Sharing</legend>
          <Toggle
            name="nowPlayingPaused"
            label="Pause “now playing”"
            hint="While paused, nobody sees what your player is playing right now."
            defaultChecked={
              refused ? refused.values.nowPlayingPaused === "on" : settings.nowPlayingPaused
            }
          />
          <Toggle
            name="recapsEnabled"
            label="Recaps"
            hint="Let Soundtrail make recaps of your listening for you to share."
            defaultChecked={
              refused ? refused.values.recapsEnabled === "on" : settings.recapsEnabled
            }
          />
        </fieldset>
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" disabled={isSaving}>
            {isSaving ? "Saving…" : "Save journey settings"}
          </Button>
          <SendStatus state={save.state} onRetry={save.retryNow} verb="save" />
          <SendStatus state={unhide.state} onRetry={unhide.retryNow} verb="save" />
        </div>
      </Form>
      {/* Outside the form above, so Enter in its fields saves it instead of removing an artist. */}
      <Form ref={unhide.formRef} id={`${id}-unhide`} method="post" hidden>
        <input type="hidden" name="intent" value="journey-unhide" />
      </Form>
    </Card>
  );
}
