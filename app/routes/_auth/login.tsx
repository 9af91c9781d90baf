import { data, Form, Link, redirect, useNavigation } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { Button } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import { signInWithEmail } from "~/features/auth/accounts.server";
import { requestSignInCode, signInWithCode } from "~/features/auth/codes.server";
import { CodeField, CurrentPasswordField } from "~/features/auth/components/account-fields";
import { ContactField, contactKindOf } from "~/features/auth/components/contact-field";
import { OAuthButtons } from "~/features/auth/components/oauth-buttons";
import { continueAsGuest } from "~/features/auth/guest.server";
import { configuredProviders, startOAuth } from "~/features/auth/oauth.server";
import { codeSchema, formValues, loginSchema } from "~/features/auth/schemas";
import { SharePreviewCard } from "~/features/share/components/share-preview-card";
import { sharePreviewMeta, sharePreviewTitle } from "~/features/share/share-preview";
import { loadSharePreview } from "~/features/share/share-preview.server";
import { invalidForm } from "~/lib/forms";
import { safeRedirectPath } from "~/lib/redirects";
import { refuse } from "~/lib/route-errors.server";
import { flashToastCookie } from "~/lib/toast.server";
import type { Route } from "./+types/login";

export const meta: Route.MetaFunction = ({ data: loaderData }) => {
  const preview = loaderData?.preview;
  if (!preview) return [{ title: "Sign in · Soundtrail" }];
  return [{ title: `${sharePreviewTitle(preview)} · Soundtrail` }, ...sharePreviewMeta(preview)];
};

export async function loader({ request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const redirectTo = safeRedirectPath(url.searchParams.get("redirectTo"));
  return {
    redirectTo,
    preview: await loadSharePreview({ path: redirectTo }),
    providers: configuredProviders(),
    kind: contactKindOf(request.url),
    problem: oauthProblem(url.searchParams.getAll("error")),
  };
}

/** What the sign-in page says after a failed OAuth round trip (`?error=…`). */
function oauthProblem(errors: string[]): string | null {
  if (errors.length === 0) return null;
  if (errors.includes("rate_limited")) {
    return "Too many sign-in attempts from here. Please wait a minute and try again.";
  }
  if (errors.some((code) => /^state_/.test(code))) {
    return "That sign-in attempt expired or was started in another browser. Please try again.";
  }
  return "Signing in with that provider did not work. Please try again, or use another way.";
}

async function signedInRedirect(headers: Headers, redirectTo: string | undefined, title: string) {
  headers.append("Set-Cookie", await flashToastCookie({ type: "success", title }));
  return redirect(safeRedirectPath(redirectTo) ?? "/feed", { headers });
}

export async function action({ request }: Route.ActionArgs) {
  const values = formValues(await request.formData());
  const redirectTo = safeRedirectPath(values.redirectTo) ?? undefined;

  if (values.intent === "oauth") {
    const result = await startOAuth({
      provider: values.provider ?? "",
      redirectTo: redirectTo ?? "/feed",
      headers: request.headers,
    });
    if (!result.ok) return refuse(result, { stage: "form" as const, contact: "" });
    return redirect(result.url, { headers: result.headers });
  }

  if (values.intent === "guest") {
    const result = await continueAsGuest({ headers: request.headers });
    if (!result.ok) return refuse(result, { stage: "form" as const, contact: "" });
    return signedInRedirect(
      result.headers,
      redirectTo,
      "Welcome, guest! Save your account any time.",
    );
  }

  if (values.intent === "verify-code") {
    const channel = values.channel === "sms" ? "sms" : "email";
    const to = values.to ?? "";
    const parsed = codeSchema.safeParse(values);
    if (!parsed.success) {
      return data(
        { stage: "code" as const, channel, to, ...invalidForm(parsed.error) },
        { status: 400 },
      );
    }
    const result = await signInWithCode({
      channel,
      to,
      code: parsed.data.code,
      headers: request.headers,
    });
    if (!result.ok) return refuse(result, { stage: "code" as const, channel, to });
    return signedInRedirect(result.headers, redirectTo, "Welcome back!");
  }

  const parsed = loginSchema.safeParse(values);
  const contact = values.email ?? values.phone ?? "";
  if (!parsed.success) {
    return data({ stage: "form" as const, ...invalidForm(parsed.error), contact }, { status: 400 });
  }
  const { email, phone, password, intent } = parsed.data;
  if (intent === "code") {
    const channel = email ? "email" : "sms";
    const to = email ?? phone ?? "";
    const result = await requestSignInCode({ channel, to, headers: request.headers });
    if (!result.ok) return refuse(result, { stage: "form" as const, contact });
    return { stage: "code" as const, ok: true as const, channel, to };
  }
  const result = await signInWithEmail({
    email,
    phone,
    password: password as string,
    headers: request.headers,
  });
  if (!result.ok) return refuse(result, { stage: "form" as const, contact });
  if (result.needsSecondFactor) {
    const next = redirectTo ? `?${new URLSearchParams({ redirectTo })}` : "";
    return redirect(`/auth/two-factor${next}`, { headers: result.headers });
  }
  return signedInRedirect(result.headers, redirectTo, "Welcome back!");
}

export default function Login({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isSubmitting = navigation.state === "submitting";
  const { redirectTo, kind } = loaderData;
  const redirectField = redirectTo ? (
    <input type="hidden" name="redirectTo" value={redirectTo} />
  ) : null;

  if (actionData?.stage === "code") {
    return (
      <AuthCard
        title="Enter your code"
        description={
          <>
            If <strong>{actionData.to}</strong> belongs to an account, we have sent it a 6-digit
            code by {actionData.channel === "sms" ? "text message" : "e-mail"}. It works for 10
            minutes.
          </>
        }
        footer={
          <Link to="/auth/login" className="font-medium text-primary underline">
            Use another way to sign in
          </Link>
        }
      >
        <Form method="post" className="flex flex-col gap-4" noValidate>
          <FormErrors message={actionData.ok ? undefined : actionData.message} />
          <input type="hidden" name="intent" value="verify-code" />
          <input type="hidden" name="channel" value={actionData.channel} />
          <input type="hidden" name="to" value={actionData.to} />
          {redirectField}
          <CodeField autoFocus errors={actionData.ok ? undefined : actionData.fieldErrors.code} />
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? "Checking…" : "Sign in"}
          </Button>
        </Form>
      </AuthCard>
    );
  }

  const errors = actionData?.fieldErrors;
  const signupHref = `/auth/signup${redirectTo ? `?${new URLSearchParams({ redirectTo })}` : ""}`;
  return (
    <AuthCard
      title="Sign in"
      description="Welcome back to Soundtrail."
      footer={
        <>
          New here?{" "}
          <Link to={signupHref} prefetch="intent" className="font-medium text-primary underline">
            Create an account
          </Link>
        </>
      }
    >
      {loaderData.preview ? <SharePreviewCard preview={loaderData.preview} /> : null}
      <div className="flex flex-col gap-4">
        <FormErrors message={actionData?.message ?? loaderData.problem} />
        <OAuthButtons providers={loaderData.providers} redirectTo={redirectTo} />
        <Form method="post" className="flex flex-col gap-4" noValidate>
          {redirectField}
          <ContactField kind={kind} defaultValue={actionData?.contact} errors={errors} />
          <div className="flex flex-col gap-1">
            <CurrentPasswordField errors={errors?.password} />
            <Link
              to="/auth/forgot-password"
              className="self-start text-sm font-medium text-primary underline"
            >
              Forgot your password?
            </Link>
          </div>
          <Button
            type="submit"
            name="intent"
            value="password"
            disabled={isSubmitting}
            className="mt-2"
          >
            {isSubmitting && navigation.formData?.get("intent") === "password"
              ? "Signing in…"
              : "Sign in"}
          </Button>
          <Button
            type="submit"
            name="intent"
            value="code"
            variant="secondary"
            disabled={isSubmitting}
          >
            {kind === "phone" ? "Text me a sign-in code" : "E-mail me a sign-in code"}
          </Button>
        </Form>
        <Form method="post" className="border-t border-border pt-4">
          <input type="hidden" name="intent" value="guest" />
          {redirectField}
          <Button type="submit" variant="ghost" disabled={isSubmitting} className="w-full">
            Continue as guest
          </Button>
          <p className="mt-1 text-center text-xs text-muted-foreground">
            Look around and post right away; add an e-mail and password later to keep it all.
          </p>
        </Form>
      </div>
    </AuthCard>
  );
}
