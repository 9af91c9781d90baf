import { useId, useMemo, useState } from "react";
import { Button } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import { shownName } from "~/core/person";
import type { FormFailure } from "~/lib/forms";
import { withUnsubscribeFooter } from "../email-content";
import { MAX_HTML_LENGTH, MAX_SUBJECT_LENGTH } from "../limits";
import { applyPlaceholders, applyTextPlaceholders } from "../placeholders";

export interface ComposerPerson {
  userId: string;
  email: string;
  displayName: string | null;
  username: string | null;
  excludedBecause: "unsubscribed" | "unconfirmed" | "banned" | null;
}

export interface ComposerSubmission {
  subject: string;
  html: string;
  audience: "everyone" | "selected";
  userIds: string[];
}

const EXCLUSION_LABELS = {
  unsubscribed: "unsubscribed",
  unconfirmed: "e-mail not confirmed",
  banned: "banned",
} as const;

/** How many matching people the selection list renders (the rest are still selectable). */
const LIST_LIMIT = 100;

const STARTER = `<h1>Hi {{display_name}},</h1>
<p>Here is what is new on Soundtrail this month.</p>
<p>See you there, @{{username}}!</p>`;

function personLabel(person: ComposerPerson): string {
  const name = shownName(person, person.email);
  return person.username ? `${name} (@${person.username})` : name;
}

/**
 * The bulk e-mail form: subject, HTML body with placeholders, who gets it, and a live preview
 * for one recipient in a sandboxed frame (no scripts, no same-origin access).
 */
export function EmailComposer({
  people,
  from,
  isBusy,
  failure,
  onSubmit,
}: {
  people: ComposerPerson[];
  from: string;
  isBusy: boolean;
  /** The server's refusal of the last submission (ADR 023). */
  failure?: FormFailure;
  onSubmit: (submission: ComposerSubmission) => void;
}) {
  const ids = {
    subject: useId(),
    body: useId(),
    bodyHint: useId(),
    filter: useId(),
    preview: useId(),
    errors: useId(),
  };
  const [subject, setSubject] = useState("");
  const [html, setHtml] = useState(STARTER);
  const [audience, setAudience] = useState<"everyone" | "selected">("everyone");
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [filter, setFilter] = useState("");
  const [previewId, setPreviewId] = useState<string | null>(null);
  const [localErrors, setLocalErrors] = useState<Partial<Record<string, string[]>>>({});
  const shownErrors = { ...failure?.fieldErrors, ...localErrors };

  const eligible = useMemo(() => people.filter((p) => p.excludedBecause === null), [people]);
  const matching = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    if (!needle) return people;
    return people.filter((p) =>
      [p.email, p.username ?? "", p.displayName ?? ""].some((v) =>
        v.toLowerCase().includes(needle),
      ),
    );
  }, [people, filter]);
  const recipients =
    audience === "everyone" ? eligible : eligible.filter((p) => selected.has(p.userId));
  const previewPerson =
    recipients.find((p) => p.userId === previewId) ?? recipients[0] ?? eligible[0] ?? null;
  const previewRecipient = previewPerson ?? { username: null, displayName: null };
  const previewHtml = withUnsubscribeFooter(
    applyPlaceholders(html, previewRecipient),
    "#unsubscribe",
  ).html;
  const previewSubject = applyTextPlaceholders(subject, previewRecipient);

  const toggle = (userId: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(userId);
      else next.delete(userId);
      return next;
    });

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const problems: Partial<Record<string, string[]>> = {};
    if (!subject.trim()) problems.subject = ["Give the mail a subject."];
    if (!html.trim()) problems.html = ["Write the body of the mail."];
    if (recipients.length === 0) problems.userIds = ["Choose at least one person."];
    setLocalErrors(problems);
    if (Object.keys(problems).length > 0) return;
    onSubmit({
      subject,
      html,
      audience,
      userIds: audience === "selected" ? recipients.map((p) => p.userId) : [],
    });
  };

  const fieldClass = "rounded-lg border bg-background px-3 text-foreground";
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-5">
      <FormErrors message={failure?.message} />
      <p className="text-sm">
        <span className="text-muted-foreground">From</span>{" "}
        <span className="font-medium">{from}</span>
      </p>
      <div className="flex flex-col gap-1.5">
        <label htmlFor={ids.subject} className="text-sm font-medium">
          Subject
        </label>
        <input
          id={ids.subject}
          value={subject}
          onChange={(e) => setSubject(e.target.value)}
          maxLength={MAX_SUBJECT_LENGTH}
          required
          aria-invalid={shownErrors.subject ? true : undefined}
          aria-describedby={shownErrors.subject ? `${ids.subject}-error` : undefined}
          className={`${fieldClass} h-10 ${shownErrors.subject ? "border-danger" : "border-border"}`}
        />
        {shownErrors.subject ? (
          <p id={`${ids.subject}-error`} className="text-sm text-danger">
            {shownErrors.subject.join(" ")}
          </p>
        ) : null}
      </div>

      <div className="grid gap-5 lg:grid-cols-2">
        <div className="flex min-w-0 flex-col gap-1.5">
          <label htmlFor={ids.body} className="text-sm font-medium">
            Body (HTML)
          </label>
          <p id={ids.bodyHint} className="text-xs text-muted-foreground">
            <code>{"{{username}}"}</code> and <code>{"{{display_name}}"}</code> are replaced for
            each person (falling back to their username, then to “there”). An unsubscribe link is
            added at the end.
          </p>
          <textarea
            id={ids.body}
            value={html}
            onChange={(e) => setHtml(e.target.value)}
            rows={14}
            maxLength={MAX_HTML_LENGTH}
            spellCheck={false}
            required
            aria-invalid={shownErrors.html ? true : undefined}
            aria-describedby={[ids.bodyHint, shownErrors.html ? `${ids.body}-error` : null]
              .filter(Boolean)
              .join(" ")}
            className={`${fieldClass} min-h-72 py-2 font-mono text-sm ${shownErrors.html ? "border-danger" : "border-border"}`}
          />
          {shownErrors.html ? (
            <p id={`${ids.body}-error`} className="text-sm text-danger">
              {shownErrors.html.join(" ")}
            </p>
          ) : null}
        </div>
        <div className="flex min-w-0 flex-col gap-1.5">
          <label htmlFor={ids.preview} className="text-sm font-medium">
            Preview for
          </label>
          <select
            id={ids.preview}
            value={previewPerson?.userId ?? ""}
            onChange={(e) => setPreviewId(e.target.value)}
            disabled={recipients.length === 0}
            className={`${fieldClass} h-10 w-full min-w-0 border-border`}
          >
            {recipients.length === 0 ? <option value="">Nobody chosen yet</option> : null}
            {recipients.slice(0, 500).map((person) => (
              <option key={person.userId} value={person.userId}>
                {personLabel(person)}
              </option>
            ))}
          </select>
          <p className="min-w-0 break-words text-sm">
            <span className="text-muted-foreground">Subject: </span>
            <span data-testid="preview-subject">{previewSubject || "—"}</span>
          </p>
          <iframe
            title="Preview of the mail"
            sandbox=""
            srcDoc={previewHtml}
            className="min-h-72 w-full flex-1 rounded-lg border border-border bg-white"
          />
        </div>
      </div>

      <fieldset className="flex min-w-0 flex-col gap-3 rounded-xl border border-border p-4">
        <legend className="px-1 text-sm font-medium">Recipients</legend>
        <div className="flex flex-wrap gap-x-6 gap-y-2">
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="audience"
              value="everyone"
              checked={audience === "everyone"}
              onChange={() => setAudience("everyone")}
              className="size-4 accent-primary"
            />
            Everyone ({eligible.length})
          </label>
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="audience"
              value="selected"
              checked={audience === "selected"}
              onChange={() => setAudience("selected")}
              className="size-4 accent-primary"
            />
            Choose people
          </label>
        </div>
        <p className="text-sm text-muted-foreground">
          People who unsubscribed from announcements, are banned or have not confirmed their e-mail
          are left out ({people.length - eligible.length} now).
        </p>
        {audience === "selected" ? (
          <div className="flex flex-col gap-2">
            <div className="flex flex-wrap items-end gap-2">
              <div className="flex min-w-56 flex-1 flex-col gap-1.5">
                <label htmlFor={ids.filter} className="text-sm font-medium">
                  Filter people
                </label>
                <input
                  id={ids.filter}
                  type="search"
                  value={filter}
                  onChange={(e) => setFilter(e.target.value)}
                  placeholder="Name, username or e-mail"
                  className={`${fieldClass} h-10 border-border`}
                />
              </div>
              <Button
                variant="secondary"
                onClick={() =>
                  setSelected((current) => {
                    const next = new Set(current);
                    for (const p of matching) if (p.excludedBecause === null) next.add(p.userId);
                    return next;
                  })
                }
              >
                Select all matching ({matching.filter((p) => p.excludedBecause === null).length})
              </Button>
              <Button variant="ghost" onClick={() => setSelected(new Set())}>
                Clear selection
              </Button>
            </div>
            <ul
              aria-label="People"
              className="max-h-72 overflow-y-auto rounded-lg border border-border"
            >
              {matching.slice(0, LIST_LIMIT).map((person) => (
                <li key={person.userId} className="border-b border-border last:border-0">
                  <label className="flex items-center gap-3 px-3 py-2 text-sm">
                    <input
                      type="checkbox"
                      checked={selected.has(person.userId)}
                      disabled={person.excludedBecause !== null}
                      onChange={(e) => toggle(person.userId, e.target.checked)}
                      className="size-4 accent-primary"
                    />
                    <span className="min-w-0 flex-1">
                      <span className="font-medium">{personLabel(person)}</span>{" "}
                      <span className="break-all text-muted-foreground">{person.email}</span>
                      {person.excludedBecause ? (
                        <span className="ml-1 text-muted-foreground">
                          ({EXCLUSION_LABELS[person.excludedBecause]})
                        </span>
                      ) : null}
                    </span>
                  </label>
                </li>
              ))}
              {matching.length === 0 ? (
                <li className="px-3 py-4 text-center text-sm text-muted-foreground">
                  Nobody matches “{filter}”.
                </li>
              ) : null}
            </ul>
            {matching.length > LIST_LIMIT ? (
              <p className="text-sm text-muted-foreground">
                Showing {LIST_LIMIT} of {matching.length}: narrow the filter to see the others.
              </p>
            ) : null}
          </div>
        ) : null}
        {shownErrors.userIds ? (
          <p className="text-sm text-danger">{shownErrors.userIds.join(" ")}</p>
        ) : null}
      </fieldset>

      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={isBusy}>
          {isBusy ? "Sending…" : "Send bulk e-mail"}
        </Button>
        <p className="text-sm text-muted-foreground" aria-live="polite">
          {recipients.length === 1
            ? "1 person will get this mail."
            : `${recipients.length} people will get this mail.`}
        </p>
      </div>
    </form>
  );
}
