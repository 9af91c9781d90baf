import { Mail, Phone, Trash2, UserPlus } from "lucide-react";
import { Form, useNavigation } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, FormErrors } from "~/components/ui/field";
import { Icon } from "~/components/ui/icon";
import { SectionHeader } from "~/components/ui/section-header";
import { SendStatus } from "~/components/ui/send-status";
import { CodeField, PHONE_HINT } from "~/features/auth";
import type { FormFailure } from "~/lib/forms";
import type { AccountOverview } from "../account.server";
import type { SignInMethod } from "../sign-in-methods.server";
import { ReauthFields } from "./reauth-fields";

/** What the account page's actions answer: a refusal (ADR 023) or the texted code's number. */
export type AccountResult = {
  intent: string;
  values: Record<string, string | undefined>;
  phoneSent: string | null;
} & (FormFailure | { ok: true; message?: undefined; fieldErrors?: undefined });

function useBusy(intent: string): boolean {
  return useNavigation().formData?.get("intent") === intent;
}

/**
 * A send of this page the network let down (ADR 037): the form keeps what was typed and says
 * so beside its button, but none is sent again by itself — each mails a link, texts a code,
 * signs in elsewhere or deletes, with a password typed for it — only by the person's Retry.
 */
function useKept(isMine: Parameters<typeof useFormResend>[0]) {
  return useFormResend(isMine, { repeat: false });
}

function EmailCard({ account, result }: { account: AccountOverview; result?: AccountResult }) {
  const mine = result?.intent === "email" ? result : undefined;
  const isBusy = useBusy("email");
  const send = useKept("email");
  return (
    <Card>
      <h3 className="flex items-center gap-2 text-lg font-semibold">
        <Mail aria-hidden="true" className="size-5 text-primary" />
        E-mail
      </h3>
      <p className="mt-1 mb-4 text-sm text-muted-foreground">
        {account.email ? (
          <>
            Now: <strong className="text-foreground">{account.email}</strong>
            {account.isEmailVerified ? "" : " (not confirmed yet)"}. We send a link to the new
            address; the change happens when you open it.
          </>
        ) : (
          "No e-mail address yet. Add one to sign in with it and to get mail from us."
        )}
      </p>
      <Form ref={send.formRef} method="post" className="flex flex-col gap-4" noValidate>
        <input type="hidden" name="intent" value="email" />
        <FormErrors message={mine?.message} />
        <Field
          label="New e-mail"
          name="newEmail"
          type="email"
          autoComplete="email"
          required
          defaultValue={mine?.values.newEmail ?? ""}
          errors={mine?.fieldErrors?.newEmail}
        />
        <ReauthFields errors={mine?.fieldErrors} />
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" disabled={isBusy}>
            {isBusy ? "Sending…" : "Send confirmation link"}
          </Button>
          <SendStatus state={send.state} onRetry={send.retryNow} />
        </div>
      </Form>
    </Card>
  );
}

function PhoneCard({ account, result }: { account: AccountOverview; result?: AccountResult }) {
  const mine = result?.intent.startsWith("phone-") ? result : undefined;
  const sentTo = mine?.phoneSent ?? null;
  const isRequesting = useBusy("phone-request");
  const isConfirming = useBusy("phone-confirm");
  const request = useKept("phone-request");
  const confirm = useKept("phone-confirm");
  return (
    <Card>
      <h3 className="flex items-center gap-2 text-lg font-semibold">
        <Phone aria-hidden="true" className="size-5 text-primary" />
        Phone number
      </h3>
      <p className="mt-1 mb-4 text-sm text-muted-foreground">
        {account.phoneNumber ? (
          <>
            Now: <strong className="text-foreground">{account.phoneNumber}</strong>. A new number is
            confirmed with a texted code.
          </>
        ) : (
          "Add a number to sign in with a texted code. We confirm it with a code first."
        )}
      </p>
      {sentTo ? (
        <Form ref={confirm.formRef} method="post" className="flex flex-col gap-4" noValidate>
          <input type="hidden" name="intent" value="phone-confirm" />
          <input type="hidden" name="phone" value={sentTo} />
          <p role="status" className="text-sm">
            We texted a code to <strong>{sentTo}</strong>.
          </p>
          <FormErrors message={mine?.message ?? mine?.fieldErrors?.phone?.join(" ")} />
          <CodeField
            label="Texted code"
            name="smsCode"
            errors={mine?.fieldErrors?.smsCode}
            autoFocus
          />
          <ReauthFields errors={mine?.intent === "phone-confirm" ? mine.fieldErrors : undefined} />
          <div className="flex flex-wrap items-center gap-2">
            <Button type="submit" disabled={isConfirming}>
              {isConfirming ? "Checking…" : "Confirm number"}
            </Button>
            <SendStatus state={confirm.state} onRetry={confirm.retryNow} verb="save" />
          </div>
        </Form>
      ) : (
        <Form ref={request.formRef} method="post" className="flex flex-col gap-4" noValidate>
          <input type="hidden" name="intent" value="phone-request" />
          <FormErrors message={mine?.message} />
          <Field
            label={account.phoneNumber ? "New phone number" : "Phone number"}
            name="phone"
            type="tel"
            autoComplete="tel"
            required
            hint={PHONE_HINT}
            defaultValue={mine?.values.phone ?? ""}
            errors={mine?.fieldErrors?.phone}
          />
          <ReauthFields errors={mine?.fieldErrors} />
          <div className="flex flex-wrap items-center gap-2">
            <Button type="submit" disabled={isRequesting}>
              {isRequesting ? "Sending…" : "Text me a code"}
            </Button>
            <SendStatus state={request.state} onRetry={request.retryNow} />
          </div>
        </Form>
      )}
    </Card>
  );
}

function UnlinkForm({
  method,
  refused,
  isBusy,
}: {
  method: SignInMethod;
  refused?: AccountResult;
  isBusy: boolean;
}) {
  const send = useKept(
    (form) => form.get("intent") === "unlink" && form.get("methodId") === method.id,
  );
  return (
    <Form ref={send.formRef} method="post" className="flex flex-col gap-3" noValidate>
      <input type="hidden" name="intent" value="unlink" />
      <input type="hidden" name="methodId" value={method.id} />
      <FormErrors message={refused?.message} />
      <ReauthFields errors={refused?.fieldErrors} />
      <div className="flex flex-wrap items-center gap-2">
        <Button
          type="submit"
          variant="secondary"
          size="sm"
          disabled={isBusy}
          aria-label={`Unlink ${method.label}`}
        >
          {isBusy ? "Unlinking…" : "Unlink"}
        </Button>
        <SendStatus state={send.state} onRetry={send.retryNow} verb="save" />
      </div>
    </Form>
  );
}

export interface SignInMethods {
  methods: SignInMethod[];
  linkable: { provider: string; label: string }[];
}

/** Every way in, with Unlink for linked accounts (never the last way in) and Link for the rest. */
function SignInMethodsCard({
  methods,
  linkable,
  result,
}: SignInMethods & { result?: AccountResult }) {
  const navigation = useNavigation();
  const busyId =
    navigation.formData?.get("intent") === "unlink" ? navigation.formData.get("methodId") : null;
  const isLinking = navigation.formData?.get("intent") === "link";
  const unlinking = result?.intent === "unlink" ? result : undefined;
  const linking = result?.intent === "link" ? result : undefined;
  const link = useKept("link");
  return (
    <Card>
      <section aria-labelledby="sign-in-methods-heading">
        <h3 id="sign-in-methods-heading" className="flex items-center gap-2 text-lg font-semibold">
          <Icon name="log-in" className="size-5 text-primary" />
          Ways to sign in
        </h3>
        <p className="mt-1 mb-4 text-sm text-muted-foreground">
          You always keep at least one. Change your password under Security, your e-mail and phone
          above.
        </p>
        {methods.length === 0 ? (
          <p className="text-sm text-muted-foreground">No way to sign in is recorded.</p>
        ) : (
          <ul aria-label="Ways to sign in" className="flex flex-col divide-y divide-border">
            {methods.map((method) => {
              const refused = unlinking?.values.methodId === method.id ? unlinking : undefined;
              return (
                <li key={method.id} className="flex flex-col gap-3 py-3">
                  <div className="flex flex-wrap items-center gap-3">
                    <div className="min-w-0 flex-1">
                      <p className="font-medium">{method.label}</p>
                      {method.detail ? (
                        <p className="text-sm break-all text-muted-foreground">{method.detail}</p>
                      ) : null}
                    </div>
                    {method.kind === "oauth" && !method.canUnlink ? (
                      <p className="text-sm text-muted-foreground">Your only way in</p>
                    ) : null}
                  </div>
                  {method.canUnlink ? (
                    <UnlinkForm method={method} refused={refused} isBusy={busyId === method.id} />
                  ) : null}
                </li>
              );
            })}
          </ul>
        )}
        {linkable.length > 0 ? (
          <Form ref={link.formRef} method="post" className="mt-4 flex flex-col gap-3" noValidate>
            <input type="hidden" name="intent" value="link" />
            <FormErrors message={linking?.message} />
            <div className="flex flex-wrap gap-2">
              {linkable.map((p) => (
                <Button
                  key={p.provider}
                  type="submit"
                  name="provider"
                  value={p.provider}
                  variant="secondary"
                  disabled={isLinking}
                >
                  Link {p.label}
                </Button>
              ))}
              <SendStatus state={link.state} onRetry={link.retryNow} />
            </div>
          </Form>
        ) : null}
      </section>
    </Card>
  );
}

function DeleteCard({ username, result }: { username: string; result?: AccountResult }) {
  const mine = result?.intent === "delete" ? result : undefined;
  const isBusy = useBusy("delete");
  const send = useKept("delete");
  return (
    <Card className="border-danger">
      <h3 className="flex items-center gap-2 text-lg font-semibold">
        <Trash2 aria-hidden="true" className="size-5 text-danger" />
        Delete your account
      </h3>
      <div className="mt-1 mb-4 flex flex-col gap-2 text-sm text-muted-foreground">
        <p>
          This cannot be undone. Your profile, posts, pictures, comments (also those on other
          people's posts), likes, follows, notifications and every session are deleted at once, and
          you can no longer sign in. Your username is free for others straight away.
        </p>
        <p>Want a copy first? Download your data under “Your data”.</p>
      </div>
      <Form ref={send.formRef} method="post" className="flex flex-col gap-4" noValidate>
        <input type="hidden" name="intent" value="delete" />
        <FormErrors message={mine?.message} />
        <Field
          label={`Type your username (${username}) to confirm`}
          name="confirmUsername"
          autoComplete="off"
          required
          defaultValue={mine?.values.confirmUsername ?? ""}
          errors={mine?.fieldErrors?.confirmUsername}
        />
        <ReauthFields errors={mine?.fieldErrors} />
        <div className="flex flex-wrap items-center gap-2">
          <Button
            type="submit"
            variant="secondary"
            disabled={isBusy}
            className="border-danger text-danger"
          >
            {isBusy ? "Deleting…" : "Delete my account"}
          </Button>
          <SendStatus state={send.state} onRetry={send.retryNow} />
        </div>
      </Form>
    </Card>
  );
}

/** /settings/account: e-mail, phone, the guest upgrade, and leaving. */
export function AccountSettings({
  account,
  username,
  signInMethods,
  result,
}: {
  account: AccountOverview;
  username: string;
  signInMethods: SignInMethods;
  result?: AccountResult;
}) {
  return (
    <div className="flex flex-col gap-6">
      <SectionHeader title="Account">
        How you sign in and how we reach you. Changes here ask you to confirm it is you when you
        signed in more than 10 minutes ago.
      </SectionHeader>
      {account.isGuest ? (
        <Card>
          <h3 className="flex items-center gap-2 text-lg font-semibold">
            <UserPlus aria-hidden="true" className="size-5 text-primary" />
            Save your account
          </h3>
          <p className="mt-1 mb-4 text-sm text-muted-foreground">
            You are browsing as a guest. Add an e-mail and password to keep everything and sign in
            from anywhere.
          </p>
          <ButtonLink to="/auth/upgrade">Save my account</ButtonLink>
        </Card>
      ) : (
        <>
          <EmailCard account={account} result={result} />
          <PhoneCard account={account} result={result} />
          <SignInMethodsCard {...signInMethods} result={result} />
        </>
      )}
      <DeleteCard username={username} result={result} />
    </div>
  );
}
