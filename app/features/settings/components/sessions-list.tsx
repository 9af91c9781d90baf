import { Laptop, LogOut, Smartphone } from "lucide-react";
import { Form, useNavigation } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { SendStatus } from "~/components/ui/send-status";
import type { SessionSummary } from "../sessions.server";

const METHOD_LABELS: Record<string, string> = {
  password: "password",
  "email-link": "e-mail link",
  "email-code": "e-mailed code",
  "sms-code": "texted code",
  oauth: "Spotify, Google or GitHub",
  guest: "guest",
  totp: "password and authenticator code",
  "backup-code": "password and backup code",
};

const dateFormat = new Intl.DateTimeFormat("en", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
});

function when(iso: string): string {
  return `${dateFormat.format(new Date(iso))} UTC`;
}

/**
 * Sign out one session: it names the state wanted, so a send the network let down is said
 * beside the button and sent again once the connection is back (ADR 037).
 */
function SignOutSession({ session, isBusy }: { session: SessionSummary; isBusy: boolean }) {
  const send = useFormResend(
    (form) => form.get("intent") === "revoke-session" && form.get("sessionId") === session.id,
  );
  return (
    <Form ref={send.formRef} method="post" className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="intent" value="revoke-session" />
      <input type="hidden" name="sessionId" value={session.id} />
      <SendStatus state={send.state} onRetry={send.retryNow} verb="save" />
      <Button
        type="submit"
        variant="secondary"
        size="sm"
        disabled={isBusy}
        aria-label={`Sign out ${session.browser} on ${session.system}`}
      >
        Sign out
      </Button>
    </Form>
  );
}

/** Active sessions with "this device" marked; end one, or all the others. */
export function SessionsList({ sessions }: { sessions: SessionSummary[] }) {
  const navigation = useNavigation();
  const busy = navigation.formData?.get("intent");
  const busySession = navigation.formData?.get("sessionId");
  const others = sessions.filter((s) => !s.isCurrent).length;
  const signOutOthers = useFormResend("revoke-others");
  return (
    <Card className="mt-6">
      <h2 className="text-lg font-semibold">Where you are signed in</h2>
      <p className="mt-1 mb-4 text-sm text-muted-foreground">
        Lost a phone or used a shared computer? End that session; the device is signed out on its
        next request.
      </p>
      <ul aria-label="Active sessions" className="flex flex-col divide-y divide-border">
        {sessions.map((s) => {
          const Icon = /iPhone|Android/.test(s.system) ? Smartphone : Laptop;
          return (
            <li key={s.id} className="flex flex-wrap items-center gap-3 py-3">
              <Icon aria-hidden="true" className="size-5 shrink-0 text-muted-foreground" />
              <div className="min-w-0 flex-1 text-sm">
                <p className="font-medium">
                  {s.browser} on {s.system}
                  {s.isCurrent ? (
                    <span className="ml-2 rounded-full bg-accent px-2 py-0.5 text-xs font-medium text-accent-foreground">
                      This device
                    </span>
                  ) : null}
                </p>
                <p className="text-muted-foreground">
                  {s.method ? `Signed in with ${METHOD_LABELS[s.method] ?? s.method}` : "Signed in"}
                  {s.ipAddress ? ` from ${s.ipAddress}` : ""} · first seen {when(s.createdAt)} ·
                  last active {when(s.lastSeenAt)}
                </p>
              </div>
              {s.isCurrent ? null : (
                <SignOutSession
                  session={s}
                  isBusy={busy === "revoke-session" && busySession === s.id}
                />
              )}
            </li>
          );
        })}
      </ul>
      <div className="mt-4 flex flex-wrap gap-3">
        {others > 0 ? (
          <Form
            ref={signOutOthers.formRef}
            method="post"
            className="flex flex-wrap items-center gap-2"
          >
            <input type="hidden" name="intent" value="revoke-others" />
            <Button type="submit" variant="secondary" disabled={busy === "revoke-others"}>
              <LogOut aria-hidden="true" className="size-4" />
              Sign out all other devices
            </Button>
            <SendStatus state={signOutOthers.state} onRetry={signOutOthers.retryNow} verb="save" />
          </Form>
        ) : null}
        <Form method="post" action="/auth/logout">
          <input type="hidden" name="everywhere" value="1" />
          <Button type="submit" variant="ghost">
            Sign out everywhere
          </Button>
        </Form>
      </div>
    </Card>
  );
}
