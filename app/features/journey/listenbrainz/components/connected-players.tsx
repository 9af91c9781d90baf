import { useEffect, useId, useRef, useState } from "react";
import { Form, useNavigation } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { ConfirmSubmitButton } from "~/components/ui/dialog";
import { Field, FormErrors } from "~/components/ui/field";
import { RelativeTime } from "~/components/ui/relative-time";
import { SectionHeader } from "~/components/ui/section-header";
import { SendStatus } from "~/components/ui/send-status";
import type { FormFailure } from "~/lib/forms";
import { LISTEN_TOKEN_NAME_MAX, MAX_ACTIVE_LISTEN_TOKENS } from "../constants";
import type { ListenTokenSummary } from "../tokens.server";

/** What the action answered: a new token (shown this once) or why it was refused. */
export type ConnectedPlayersResult =
  | { intent: "create"; created: { name: string; token: string } }
  | (FormFailure & { intent: string; values: Record<string, string> });

/** The new token, once, with a button that copies it. */
function NewToken({ name, token }: { name: string; token: string }) {
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  const heading = useRef<HTMLHeadingElement>(null);
  const labelId = useId();
  const inputId = useId();
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <section className="rounded-lg border border-primary p-4" aria-labelledby={labelId}>
      <h3 id={labelId} ref={heading} tabIndex={-1} className="font-semibold">
        Your token for “{name}”
      </h3>
      <p className="mt-1 text-sm text-muted-foreground">
        Copy it into your player now: it is shown only this once. If you lose it, revoke it and make
        a new one.
      </p>
      <label htmlFor={inputId} className="mt-3 block text-sm font-medium">
        New token
      </label>
      <div className="mt-1 flex flex-wrap items-center gap-2">
        <input
          id={inputId}
          readOnly
          value={token}
          onFocus={(event) => event.currentTarget.select()}
          className="h-10 min-w-0 flex-1 basis-72 rounded-lg border border-border bg-background px-3 font-mono text-xs text-foreground sm:text-sm"
        />
        <Button
          variant="secondary"
          onClick={() => {
            navigator.clipboard
              ?.writeText(token)
              .then(() => setCopied("copied"))
              .catch(() => setCopied("failed"));
            if (!navigator.clipboard) setCopied("failed");
          }}
        >
          Copy token
        </Button>
      </div>
      <p role="status" className="mt-2 min-h-5 text-sm">
        {copied === "copied"
          ? "Copied to the clipboard."
          : copied === "failed"
            ? "Copying did not work here: select the token and copy it yourself."
            : ""}
      </p>
    </section>
  );
}

function TokenRow({ token }: { token: ListenTokenSummary }) {
  const navigation = useNavigation();
  const isRevoking = navigation.formData?.get("tokenId") === token.id;
  // Revoking names the state wanted: sent again by itself after a network failure (ADR 037).
  const revoke = useFormResend(
    (form) => form.get("intent") === "revoke" && form.get("tokenId") === token.id,
  );
  return (
    <li className="flex flex-wrap items-center gap-3 py-3">
      <div className="min-w-0 flex-1">
        <p className="font-medium break-words">{token.name}</p>
        <p className="text-sm text-muted-foreground">
          Ends in <span className="font-mono">…{token.hint}</span> · created{" "}
          <RelativeTime iso={token.createdAt} /> ·{" "}
          {token.lastUsedAt ? (
            <>
              last used <RelativeTime iso={token.lastUsedAt} />
            </>
          ) : (
            "never used yet"
          )}
          {token.revokedAt ? (
            <>
              {" "}
              · revoked <RelativeTime iso={token.revokedAt} />
            </>
          ) : null}
        </p>
      </div>
      {token.revokedAt ? null : (
        <Form ref={revoke.formRef} method="post" className="flex flex-wrap items-center gap-2">
          <SendStatus state={revoke.state} onRetry={revoke.retryNow} verb="save" />
          <input type="hidden" name="intent" value="revoke" />
          <input type="hidden" name="tokenId" value={token.id} />
          <ConfirmSubmitButton
            className="inline-flex h-8 items-center rounded-lg border border-border px-3 text-sm font-medium text-danger hover:bg-muted"
            disabled={isRevoking}
            aria-label={`Revoke ${token.name}`}
            title={`Revoke “${token.name}”?`}
            description="The player that uses it can no longer send what you play. Listens it already sent stay in your history."
            confirmLabel="Revoke"
          >
            Revoke
          </ConfirmSubmitButton>
        </Form>
      )}
    </li>
  );
}

/** Settings → Connected players: tokens for ListenBrainz-compatible players, and how to use them. */
export function ConnectedPlayers({
  baseUrl,
  username,
  tokens,
  result,
}: {
  baseUrl: string;
  /** The person's username, which some players ask for next to the token. */
  username: string;
  tokens: { active: ListenTokenSummary[]; revoked: ListenTokenSummary[] };
  result: ConnectedPlayersResult | undefined;
}) {
  const navigation = useNavigation();
  const isCreating = navigation.formData?.get("intent") === "create";
  const created = result && "created" in result ? result.created : null;
  const failure =
    result && "fieldErrors" in result && result.intent === "create" ? result : undefined;
  const errors = failure?.fieldErrors ?? {};
  const values = result && "values" in result ? result.values : {};
  // A new token is not made twice by itself: after a network failure the name stays and the
  // person's Retry sends it (ADR 037).
  const create = useFormResend("create", { repeat: false });
  const formRef = create.formRef;
  useEffect(() => {
    if (created) formRef.current?.reset();
  }, [created, formRef]);
  const atLimit = tokens.active.length >= MAX_ACTIVE_LISTEN_TOKENS;

  return (
    <div className="flex flex-col gap-6">
      <Card>
        <SectionHeader title="Connected players">
          Music players and scrobblers that can send listens to a ListenBrainz server can send them
          to Soundtrail instead (or as well): each gets a token of its own, so you can cut one off
          without touching the others. What they send becomes your listening history, and the track
          playing right now shows on your profile to the people who may see your journey.
        </SectionHeader>
        {created ? <NewToken name={created.name} token={created.token} /> : null}
        <Form method="post" ref={formRef} className="mt-4 flex flex-col gap-3" noValidate>
          <input type="hidden" name="intent" value="create" />
          <FormErrors message={failure?.message} />
          <Field
            label="Token name"
            name="name"
            maxLength={LISTEN_TOKEN_NAME_MAX}
            required
            autoComplete="off"
            placeholder="Navidrome at home"
            hint="Say which player will use it, so you can tell your tokens apart."
            defaultValue={created ? "" : values.name}
            errors={errors.name}
          />
          <div>
            <div className="flex flex-wrap items-center gap-2">
              <Button type="submit" disabled={isCreating || atLimit}>
                {isCreating ? "Creating…" : "Create token"}
              </Button>
              <SendStatus state={create.state} onRetry={create.retryNow} />
            </div>
            {atLimit ? (
              <p className="mt-2 text-sm text-muted-foreground">
                You have {MAX_ACTIVE_LISTEN_TOKENS} tokens, the most you can have at once. Revoke
                one to make a new one.
              </p>
            ) : null}
          </div>
        </Form>
      </Card>

      <Card>
        <h2 className="mb-1 text-lg font-semibold">Your tokens</h2>
        {tokens.active.length === 0 ? (
          <p className="text-sm text-muted-foreground">
            No player is connected yet. Create a token above.
          </p>
        ) : (
          <ul aria-label="Working tokens" className="flex flex-col divide-y divide-border">
            {tokens.active.map((token) => (
              <TokenRow key={token.id} token={token} />
            ))}
          </ul>
        )}
        {tokens.revoked.length > 0 ? (
          <>
            <h3 className="mt-4 text-sm font-semibold">Recently revoked</h3>
            <ul aria-label="Revoked tokens" className="flex flex-col divide-y divide-border">
              {tokens.revoked.map((token) => (
                <TokenRow key={token.id} token={token} />
              ))}
            </ul>
          </>
        ) : null}
      </Card>

      <Card>
        <h2 className="mb-1 text-lg font-semibold">Set up your player</h2>
        <p className="text-sm text-muted-foreground">
          Soundtrail speaks the ListenBrainz API. Wherever a player asks for a custom ListenBrainz
          server, give it this address and your token:
        </p>
        <dl className="mt-3 grid gap-2 text-sm sm:grid-cols-[10rem_minmax(0,1fr)]">
          <dt className="font-medium">Server (API root)</dt>
          <dd>
            <code className="font-mono wrap-anywhere">{baseUrl}</code>
          </dd>
          <dt className="font-medium">Full API address</dt>
          <dd>
            <code className="font-mono wrap-anywhere">{`${baseUrl}/1/`}</code>
          </dd>
        </dl>
        <ul className="mt-4 flex min-w-0 list-disc flex-col gap-2 pl-5 text-sm break-words">
          <li>
            <strong>Navidrome</strong>: set{" "}
            <code className="wrap-anywhere">ND_LISTENBRAINZ_BASEURL={`${baseUrl}/1/`}</code> (or{" "}
            <code>ListenBrainz.BaseURL</code> in its config file), restart it, then paste the token
            under Personal → ListenBrainz.
          </li>
          <li>
            <strong>Jellyfin</strong> (ListenBrainz plugin): in the plugin's settings, turn on the
            alternative server and enter <code className="wrap-anywhere">{baseUrl}</code> as its
            URL, then the token for your user.
          </li>
          <li>
            <strong>multi-scrobbler</strong>: add a ListenBrainz client with{" "}
            <code className="wrap-anywhere">{`"url": "${baseUrl}/"`}</code>,{" "}
            <code className="wrap-anywhere">{`"username": "${username}"`}</code> and{" "}
            <code>{'"token": "<your token>"'}</code>.
          </li>
          <li>
            <strong>Pano Scrobbler</strong>: add an account of type “Custom ListenBrainz”, with{" "}
            <code className="wrap-anywhere">{`${baseUrl}/`}</code> as the API URL and the token.
          </li>
          <li>
            <strong>Web Scrobbler</strong>: in its ListenBrainz account settings, enter{" "}
            <code className="wrap-anywhere">{`${baseUrl}/1/submit-listens`}</code> as the API URL
            and the token.
          </li>
        </ul>
        <p className="mt-3 text-sm text-muted-foreground">
          Anything else that lets you change the ListenBrainz address works the same way: it sends
          to <code>/1/submit-listens</code> under the server address with{" "}
          <code>Authorization: Token &lt;your token&gt;</code>.
        </p>
      </Card>
    </div>
  );
}
