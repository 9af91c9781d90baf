import { KeyRound, ShieldCheck } from "lucide-react";
import { useEffect, useId } from "react";
import { useFetcher } from "react-router";
import { useFetcherFormResend } from "~/components/hooks/use-resend";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { FormErrors } from "~/components/ui/field";
import { Icon } from "~/components/ui/icon";
import { SendStatus } from "~/components/ui/send-status";
import type { FormFailure } from "~/lib/forms";
import type { NetworkFailure } from "~/lib/resilient-send";
import { CodeField, CurrentPasswordField, NewPasswordField } from "./account-fields";

export type SecurityActionData =
  | {
      intent: "2fa-start";
      ok: true;
      secret: string;
      uri: string;
      qr: { size: number; path: string };
    }
  | { intent: "2fa-confirm" | "backup-codes"; ok: true; backupCodes: string[] }
  | { intent: "2fa-disable"; ok: true }
  | { intent: "password"; ok: true; signedOutOthers: boolean }
  | (FormFailure & {
      intent: string;
      secret?: string;
      uri?: string;
      qr?: { size: number; path: string };
      /** What the server asks for before a sensitive change (a recent sign-in, aal2). */
      needs?: ("password" | "code")[];
    });

/**
 * None of these is sent again by itself after a network failure (ADR 037): each makes new
 * codes or secrets, or needs a password typed for it. The form keeps what was typed, says so
 * beside its button, and the person's Retry sends it.
 */
const KEPT_FOR_RETRY = { repeat: false };

function BackupCodeList({ codes }: { codes: string[] }) {
  return (
    <ul aria-label="Backup codes" className="grid grid-cols-2 gap-2 font-mono text-sm">
      {codes.map((code) => (
        <li key={code} className="rounded-md bg-muted px-2 py-1">
          {code}
        </li>
      ))}
    </ul>
  );
}

/**
 * New backup codes, shown once. The server decides whether it is recent enough; when it asks,
 * the password and/or an authenticator code appear here, keeping what was typed.
 */
function BackupCodes({ backupCodesLeft }: { backupCodesLeft: number }) {
  const fetcher = useFetcher<SecurityActionData | NetworkFailure>({ key: "backup-codes" });
  const send = useFetcherFormResend(fetcher.data, KEPT_FOR_RETRY);
  const result = send.answer;
  const codes = result?.intent === "backup-codes" && result.ok ? result.backupCodes : null;
  const failure = result && !result.ok ? result : undefined;
  const errors = failure?.fieldErrors;
  const needs = result && !result.ok ? (result.needs ?? []) : [];
  return (
    <Card className="mt-6">
      <section aria-labelledby="backup-codes-heading">
        <h2 id="backup-codes-heading" className="flex items-center gap-2 text-lg font-semibold">
          <Icon name="key-round" className="size-5 text-primary" />
          Backup codes
        </h2>
        {codes ? (
          <div className="mt-3 flex flex-col gap-3" role="status">
            <p className="text-sm">
              Your new backup codes. The old ones no longer work. Save these somewhere safe: each
              one lets you in once, and they are shown only now.
            </p>
            <BackupCodeList codes={codes} />
          </div>
        ) : (
          <fetcher.Form
            ref={send.formRef}
            method="post"
            className="mt-3 flex flex-col gap-4"
            noValidate
          >
            <input type="hidden" name="intent" value="backup-codes" />
            <p className="text-sm text-muted-foreground">
              {backupCodesLeft} of 10 left. Getting new ones makes the old ones stop working.
            </p>
            <FormErrors message={failure?.message} />
            {needs.includes("password") ? (
              <CurrentPasswordField errors={errors?.password} required />
            ) : null}
            {needs.includes("code") ? (
              <CodeField hint="From your authenticator app." errors={errors?.code} />
            ) : null}
            <div className="flex flex-wrap items-center gap-2">
              <Button type="submit" variant="secondary" disabled={fetcher.state !== "idle"}>
                {fetcher.state !== "idle" ? "Making new codes…" : "Get new backup codes"}
              </Button>
              <SendStatus state={send.state} onRetry={send.retryNow} verb="send" />
            </div>
          </fetcher.Form>
        )}
      </section>
    </Card>
  );
}

function QrCode({ qr, label }: { qr: { size: number; path: string }; label: string }) {
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${qr.size} ${qr.size}`}
      className="size-48 rounded-lg bg-white p-2"
      shapeRendering="crispEdges"
    >
      <path d={qr.path} fill="#000" />
    </svg>
  );
}

/** Two-step sign-in (TOTP) and password, in settings. */
export function SecuritySettings({
  isTwoFactorOn,
  backupCodesLeft,
  hasPassword,
}: {
  isTwoFactorOn: boolean;
  backupCodesLeft: number;
  hasPassword: boolean;
}) {
  const twoFactor = useFetcher<SecurityActionData | NetworkFailure>({ key: "two-factor" });
  const password = useFetcher<SecurityActionData | NetworkFailure>({ key: "password" });
  const twoFactorSend = useFetcherFormResend(twoFactor.data, KEPT_FOR_RETRY);
  const passwordSend = useFetcherFormResend(password.data, KEPT_FOR_RETRY);
  const signOutId = useId();
  const passwordForm = passwordSend.formRef;
  const result = twoFactorSend.answer;
  const passwordAnswer = passwordSend.answer;
  const passwordFailure = passwordAnswer && !passwordAnswer.ok ? passwordAnswer : undefined;
  const failure = result && !result.ok ? result : undefined;
  const errors = failure?.fieldErrors;
  const enrolment =
    result?.intent === "2fa-start" && result.ok
      ? result
      : result && !result.ok && result.qr && result.secret && result.uri
        ? { secret: result.secret, uri: result.uri, qr: result.qr }
        : null;
  const backupCodes = result?.intent === "2fa-confirm" && result.ok ? result.backupCodes : null;
  const isBusy = twoFactor.state !== "idle";

  useEffect(() => {
    if (passwordAnswer?.ok) passwordForm.current?.reset();
  }, [passwordAnswer, passwordForm]);
  const twoFactorStatus = (
    <SendStatus state={twoFactorSend.state} onRetry={twoFactorSend.retryNow} verb="save" />
  );

  return (
    <>
      <Card className="mt-6">
        <h2 className="flex items-center gap-2 text-lg font-semibold">
          <ShieldCheck aria-hidden="true" className="size-5 text-primary" />
          Two-step sign-in
        </h2>
        {backupCodes ? (
          <div className="mt-3 flex flex-col gap-3" role="status">
            <p className="text-sm">
              Two-step sign-in is on. Save these backup codes somewhere safe: each one lets you in
              once if you lose your phone. They are shown only now.
            </p>
            <BackupCodeList codes={backupCodes} />
          </div>
        ) : enrolment ? (
          <twoFactor.Form
            ref={twoFactorSend.formRef}
            method="post"
            className="mt-3 flex flex-col gap-4"
            noValidate
          >
            <input type="hidden" name="intent" value="2fa-confirm" />
            <input type="hidden" name="secret" value={enrolment.secret} />
            <input type="hidden" name="uri" value={enrolment.uri} />
            <p className="text-sm">
              Scan this code with your authenticator app, or type the secret key into it. Then enter
              the 6-digit code it shows.
            </p>
            <QrCode qr={enrolment.qr} label="QR code for your authenticator app" />
            <p className="text-sm">
              Secret key:{" "}
              <code className="break-all rounded bg-muted px-1.5 py-0.5 font-mono">
                {enrolment.secret}
              </code>
            </p>
            <CodeField errors={errors?.code} />
            <FormErrors message={failure?.message} />
            <div className="flex flex-wrap items-center gap-2">
              <Button type="submit" disabled={isBusy}>
                Turn on two-step sign-in
              </Button>
              {twoFactorStatus}
            </div>
          </twoFactor.Form>
        ) : isTwoFactorOn ? (
          <twoFactor.Form
            ref={twoFactorSend.formRef}
            method="post"
            className="mt-3 flex flex-col gap-4"
            noValidate
          >
            <input type="hidden" name="intent" value="2fa-disable" />
            <p className="text-sm text-muted-foreground">
              Two-step sign-in is on. {backupCodesLeft} backup code
              {backupCodesLeft === 1 ? "" : "s"} left. To turn it off, confirm it is you.
            </p>
            <FormErrors message={failure?.message} />
            {hasPassword ? <CurrentPasswordField errors={errors?.password} /> : null}
            <CodeField hint="From your authenticator app." errors={errors?.code} required={false} />
            <div className="flex flex-wrap items-center gap-2">
              <Button type="submit" variant="danger" disabled={isBusy}>
                Turn off two-step sign-in
              </Button>
              {twoFactorStatus}
            </div>
          </twoFactor.Form>
        ) : (
          <twoFactor.Form
            ref={twoFactorSend.formRef}
            method="post"
            className="mt-3 flex flex-col gap-4"
            noValidate
          >
            <input type="hidden" name="intent" value="2fa-start" />
            <p className="text-sm text-muted-foreground">
              Ask for a code from an authenticator app each time you sign in with your password.
            </p>
            <FormErrors message={failure?.message} />
            {hasPassword ? <CurrentPasswordField errors={errors?.password} /> : null}
            <div className="flex flex-wrap items-center gap-2">
              <Button type="submit" disabled={isBusy}>
                Set up two-step sign-in
              </Button>
              {twoFactorStatus}
            </div>
          </twoFactor.Form>
        )}
      </Card>
      {isTwoFactorOn && !backupCodes ? <BackupCodes backupCodesLeft={backupCodesLeft} /> : null}
      {hasPassword ? (
        <Card className="mt-6">
          <h2 className="flex items-center gap-2 text-lg font-semibold">
            <KeyRound aria-hidden="true" className="size-5 text-primary" />
            Password
          </h2>
          <password.Form
            ref={passwordForm}
            method="post"
            className="mt-3 flex flex-col gap-4"
            noValidate
          >
            <input type="hidden" name="intent" value="password" />
            {passwordAnswer?.ok ? (
              <p role="status" className="text-sm text-primary">
                {passwordAnswer.intent === "password" && !passwordAnswer.signedOutOthers
                  ? "Password changed. Your other devices stay signed in."
                  : "Password changed. Every other device was signed out."}
              </p>
            ) : null}
            <FormErrors message={passwordFailure?.message} />
            <CurrentPasswordField
              label="Current password"
              name="currentPassword"
              errors={passwordFailure?.fieldErrors.currentPassword}
            />
            <NewPasswordField
              label="New password"
              name="newPassword"
              errors={passwordFailure?.fieldErrors.newPassword}
              required={false}
            />
            {isTwoFactorOn ? (
              <CodeField
                hint="From your authenticator app, if asked."
                errors={passwordFailure?.fieldErrors.code}
                required={false}
              />
            ) : null}
            <div className="flex items-center gap-3">
              <input
                id={signOutId}
                type="checkbox"
                name="signOutOthers"
                defaultChecked
                className="size-4 accent-[var(--primary)]"
              />
              <label htmlFor={signOutId} className="text-sm font-medium">
                Sign out my other devices
              </label>
            </div>
            <div className="flex flex-wrap items-center gap-2">
              <Button type="submit" disabled={password.state !== "idle"}>
                Change password
              </Button>
              <SendStatus state={passwordSend.state} onRetry={passwordSend.retryNow} verb="save" />
            </div>
          </password.Form>
        </Card>
      ) : null}
    </>
  );
}
