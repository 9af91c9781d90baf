import { data, Form, Link, redirect, useNavigation } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { Button } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import { Icon } from "~/components/ui/icon";
import { signUpWithEmail } from "~/features/auth/accounts.server";
import { confirmPhoneSignUp, signUpWithPhone } from "~/features/auth/codes.server";
import {
  CodeField,
  DisplayNameField,
  NewPasswordField,
  UsernameField,
} from "~/features/auth/components/account-fields";
import { ContactField, contactKindOf } from "~/features/auth/components/contact-field";
import { codeSchema, formValues, signupSchema } from "~/features/auth/schemas";
import { invalidForm } from "~/lib/forms";
import { safeRedirectPath } from "~/lib/redirects";
import { refuse } from "~/lib/route-errors.server";
import { flashToastCookie } from "~/lib/toast.server";
import type { Route } from "./+types/signup";

export const meta: Route.MetaFunction = () => [{ title: "Create your account · Soundtrail" }];

export function loader({ request }: Route.LoaderArgs) {
  return {
    kind: contactKindOf(request.url),
    redirectTo: safeRedirectPath(new URL(request.url).searchParams.get("redirectTo")),
  };
}

export async function action({ request }: Route.ActionArgs) {
  const values = formValues(await request.formData());

  if (values.intent === "verify-phone") {
    const phone = values.phone ?? "";
    const parsed = codeSchema.safeParse(values);
    if (!parsed.success) {
      return data(
        { status: "code" as const, phone, ...invalidForm(parsed.error) },
        { status: 400 },
      );
    }
    const result = await confirmPhoneSignUp({
      phone,
      code: parsed.data.code,
      headers: request.headers,
    });
    if (!result.ok) return refuse(result, { status: "code" as const, phone });
    result.headers.append(
      "Set-Cookie",
      await flashToastCookie({
        type: "success",
        title: "Phone confirmed",
        description: "Welcome to Soundtrail!",
      }),
    );
    return redirect(safeRedirectPath(values.redirectTo) ?? "/feed", { headers: result.headers });
  }

  const parsed = signupSchema.safeParse(values);
  const echo = {
    contact: values.email ?? values.phone ?? "",
    username: values.username ?? "",
    displayName: values.displayName ?? "",
  };
  if (!parsed.success) {
    return data(
      { status: "error" as const, ...invalidForm(parsed.error), values: echo },
      { status: 400 },
    );
  }
  const { email, phone, password, username, displayName } = parsed.data;
  const result = phone
    ? await signUpWithPhone({
        phone,
        password: password as string,
        username,
        displayName,
        headers: request.headers,
      })
    : await signUpWithEmail({
        email: email as string,
        password: password as string,
        username,
        displayName,
        headers: request.headers,
      });
  if (!result.ok) {
    return refuse(result, { status: "error" as const, values: echo });
  }
  if (phone) return { status: "code" as const, ok: true as const, phone };
  return { status: "sent" as const, email: email as string };
}

export default function Signup({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isSubmitting = navigation.state === "submitting";
  if (actionData?.status === "sent") {
    return (
      <AuthCard title="Check your inbox" description="One more step.">
        <div
          role="status"
          className="flex gap-3 rounded-lg border border-border bg-muted p-4 text-sm"
        >
          <Icon name="mail-check" className="size-5 shrink-0 text-primary" />
          <p>
            We sent a confirmation link to <strong>{actionData.email}</strong>. Open it to finish
            creating your account. It works for 24 hours.
          </p>
        </div>
      </AuthCard>
    );
  }
  if (actionData?.status === "code") {
    return (
      <AuthCard
        title="Confirm your phone"
        description={
          <>
            We texted a 6-digit code to <strong>{actionData.phone}</strong>. Enter it to finish
            creating your account. It works for 10 minutes.
          </>
        }
      >
        <Form method="post" className="flex flex-col gap-4" noValidate>
          <FormErrors message={actionData.ok ? undefined : actionData.message} />
          <input type="hidden" name="intent" value="verify-phone" />
          <input type="hidden" name="phone" value={actionData.phone} />
          {loaderData.redirectTo ? (
            <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
          ) : null}
          <CodeField autoFocus errors={actionData.ok ? undefined : actionData.fieldErrors.code} />
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? "Checking…" : "Confirm and continue"}
          </Button>
        </Form>
      </AuthCard>
    );
  }
  const failure = actionData?.status === "error" ? actionData : undefined;
  const errors = failure?.fieldErrors;
  const values = actionData?.status === "error" ? actionData.values : undefined;
  return (
    <AuthCard
      title="Create your account"
      description="Share your music journey with friends."
      footer={
        <>
          Already have an account?{" "}
          <Link to="/auth/login" prefetch="intent" className="font-medium text-primary underline">
            Sign in
          </Link>
        </>
      }
    >
      <Form method="post" className="flex flex-col gap-4" noValidate>
        <FormErrors message={failure?.message} />
        {loaderData.redirectTo ? (
          <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
        ) : null}
        <ContactField kind={loaderData.kind} defaultValue={values?.contact} errors={errors} />
        <NewPasswordField errors={errors?.password} />
        <UsernameField defaultValue={values?.username} errors={errors?.username} />
        <DisplayNameField defaultValue={values?.displayName} errors={errors?.displayName} />
        <Button type="submit" disabled={isSubmitting} className="mt-2">
          {isSubmitting ? "Creating your account…" : "Create account"}
        </Button>
      </Form>
    </AuthCard>
  );
}
