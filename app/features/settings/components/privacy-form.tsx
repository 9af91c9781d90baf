import { useId } from "react";
import { Form, Link, useNavigation } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Avatar } from "~/components/ui/avatar";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { FieldErrorList, FormErrors } from "~/components/ui/field";
import { RelativeTime } from "~/components/ui/relative-time";
import { SectionHeader } from "~/components/ui/section-header";
import { SendStatus } from "~/components/ui/send-status";
import type { FollowRequest } from "~/features/follows/index.server";
import { AUDIENCE_LABELS, AUDIENCES } from "~/features/posts";
import type { FormFailure } from "~/lib/forms";
import { cn } from "~/lib/utils";
import { DEFAULT_AUDIENCE_HINTS } from "../constants";
import type { PrivacySettings } from "../privacy.server";

/** A refused privacy form (ADR 023) with what was chosen. */
export interface PrivacyFormResult extends FormFailure {
  intent: string;
  values: Record<string, string>;
}

function Choice({
  name,
  value,
  label,
  hint,
  defaultChecked,
  describedBy,
}: {
  name: string;
  value: string;
  label: string;
  hint: string;
  defaultChecked: boolean;
  describedBy?: string;
}) {
  const id = useId();
  return (
    <div className="flex items-start gap-3 rounded-lg border border-border p-3">
      <input
        id={id}
        type="radio"
        name={name}
        value={value}
        defaultChecked={defaultChecked}
        aria-describedby={[`${id}-hint`, describedBy].filter(Boolean).join(" ")}
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

/** Default audience, who may follow, and being found: one form, saved together. */
export function PrivacyForm({
  settings,
  result,
}: {
  settings: PrivacySettings;
  result?: PrivacyFormResult;
}) {
  const navigation = useNavigation();
  const isSaving = navigation.formData?.get("intent") === "privacy";
  // The choices name the state wanted: a save the network let down goes again (ADR 037).
  const save = useFormResend("privacy");
  const refused = result?.intent === "privacy" ? result : undefined;
  const values = refused?.values;
  const id = useId();
  const audience = values ? values.defaultAudience : settings.defaultAudience;
  const followers = values
    ? values.requiresFollowApproval
    : settings.requiresFollowApproval
      ? "approve"
      : "anyone";
  const isDiscoverable = values ? values.isDiscoverable === "on" : settings.isDiscoverable;
  return (
    <Card>
      <SectionHeader title="Privacy">
        Who sees what you share, who may follow you, and whether people can find you.
      </SectionHeader>
      <Form ref={save.formRef} method="post" className="flex flex-col gap-6" noValidate>
        <input type="hidden" name="intent" value="privacy" />
        <FormErrors message={refused?.message} />
        <fieldset
          className="flex flex-col gap-2"
          aria-describedby={
            refused?.fieldErrors.defaultAudience ? `${id}-audience-errors` : undefined
          }
        >
          <legend className="mb-1 font-semibold">Who sees your new posts</legend>
          <p className="text-sm text-muted-foreground">
            The composer starts with this choice; you can still change it for each post.
          </p>
          {AUDIENCES.map((a) => (
            <Choice
              key={a}
              name="defaultAudience"
              value={a}
              label={AUDIENCE_LABELS[a]}
              hint={DEFAULT_AUDIENCE_HINTS[a]}
              defaultChecked={audience === a}
            />
          ))}
          <FieldErrorList
            id={`${id}-audience-errors`}
            errors={refused?.fieldErrors.defaultAudience}
          />
        </fieldset>
        <fieldset
          className="flex flex-col gap-2"
          aria-describedby={
            refused?.fieldErrors.requiresFollowApproval ? `${id}-follow-errors` : undefined
          }
        >
          <legend className="mb-1 font-semibold">Who may follow you</legend>
          <Choice
            name="requiresFollowApproval"
            value="anyone"
            label="Anyone"
            hint="People follow you at once."
            defaultChecked={followers === "anyone"}
          />
          <Choice
            name="requiresFollowApproval"
            value="approve"
            label="People I approve"
            hint="People ask to follow you; your followers-only posts show to them once you accept."
            defaultChecked={followers === "approve"}
          />
          <FieldErrorList
            id={`${id}-follow-errors`}
            errors={refused?.fieldErrors.requiresFollowApproval}
          />
        </fieldset>
        <div className="flex items-start gap-3">
          <input
            id={`${id}-discoverable`}
            type="checkbox"
            name="isDiscoverable"
            defaultChecked={isDiscoverable}
            aria-describedby={`${id}-discoverable-hint`}
            className="mt-1 size-4 accent-[var(--primary)]"
          />
          <div>
            <label htmlFor={`${id}-discoverable`} className="font-medium">
              Show me in search and suggestions
            </label>
            <p id={`${id}-discoverable-hint`} className="text-sm text-muted-foreground">
              When off, other people do not find you in people search or “people to follow”. Your
              profile link and your public posts still work.
            </p>
          </div>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" disabled={isSaving}>
            {isSaving ? "Saving…" : "Save privacy settings"}
          </Button>
          <SendStatus state={save.state} onRetry={save.retryNow} verb="save" />
        </div>
      </Form>
    </Card>
  );
}

/**
 * Accept or Decline for one person: an answer the network let down is kept, said beside the
 * buttons, and given again by the same button when the connection is back (ADR 037).
 */
function RequestAnswer({ person, isBusy }: { person: FollowRequest; isBusy: boolean }) {
  const answer = useFormResend(
    (form) =>
      form.get("requesterId") === person.id &&
      (form.get("intent") === "accept" || form.get("intent") === "decline"),
  );
  return (
    <Form ref={answer.formRef} method="post" className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="requesterId" value={person.id} />
      <input type="hidden" name="name" value={person.displayName} />
      <SendStatus state={answer.state} onRetry={answer.retryNow} verb="save" />
      <Button
        type="submit"
        name="intent"
        value="accept"
        size="sm"
        disabled={isBusy}
        aria-label={`Accept ${person.displayName}`}
      >
        Accept
      </Button>
      <Button
        type="submit"
        name="intent"
        value="decline"
        variant="secondary"
        size="sm"
        disabled={isBusy}
        aria-label={`Decline ${person.displayName}`}
      >
        Decline
      </Button>
    </Form>
  );
}

/** The people waiting for the viewer to accept them as followers, with Accept and Decline. */
export function FollowRequests({
  requests,
  total,
  page,
  pageCount,
  requiresApproval,
}: {
  requests: FollowRequest[];
  total: number;
  page: number;
  pageCount: number;
  requiresApproval: boolean;
}) {
  const navigation = useNavigation();
  const busy = navigation.formData?.get("requesterId");
  if (!requiresApproval && total === 0) return null;
  return (
    <Card>
      <section aria-labelledby="follow-requests-heading" id="follow-requests">
        <h2 id="follow-requests-heading" className="mb-1 text-lg font-semibold">
          Follow requests{" "}
          {total > 0 ? <span className="text-muted-foreground">({total})</span> : null}
        </h2>
        <p className="mb-3 text-sm text-muted-foreground">
          Accepted people follow you and see your followers-only posts. Declined people are not
          told.
        </p>
        {requests.length === 0 ? (
          <p className="text-sm text-muted-foreground">Nobody is waiting for an answer.</p>
        ) : (
          <ul aria-label="Follow requests" className="flex flex-col divide-y divide-border">
            {requests.map((person) => (
              <li key={person.id} className="flex flex-wrap items-center gap-3 py-3">
                <Avatar
                  name={person.displayName}
                  username={person.username}
                  src={person.avatarUrl}
                />
                <div className="min-w-0 flex-1">
                  <Link to={`/u/${person.username}`} className="font-medium hover:underline">
                    {person.displayName}
                  </Link>
                  <p className="text-sm text-muted-foreground">
                    @{person.username} · asked <RelativeTime iso={person.requestedAt} />
                  </p>
                </div>
                <RequestAnswer person={person} isBusy={busy === person.id} />
              </li>
            ))}
          </ul>
        )}
        {pageCount > 1 ? (
          <nav aria-label="Follow request pages" className="mt-3 flex items-center gap-3 text-sm">
            {page > 1 ? (
              <Link
                to={`?requests=${page - 1}#follow-requests`}
                className="font-medium text-primary hover:underline"
              >
                Previous
              </Link>
            ) : null}
            <span className={cn("text-muted-foreground")}>
              Page {page} of {pageCount}
            </span>
            {page < pageCount ? (
              <Link
                to={`?requests=${page + 1}#follow-requests`}
                className="font-medium text-primary hover:underline"
              >
                Next
              </Link>
            ) : null}
          </nav>
        ) : null}
      </section>
    </Card>
  );
}
