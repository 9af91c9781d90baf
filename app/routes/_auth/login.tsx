import { data, Form, Link, redirect, useNavigation } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { Button } from "~/components/ui/button";
import { Field, FormErrors } from "~/components/ui/field";
import { failureInit, signInWithEmail } from "~/features/auth/accounts.server";
import { fieldErrors, formValues, loginSchema } from "~/features/auth/schemas";
import { safeRedirectPath } from "~/lib/redirects";
import { flashToastCookie } from "~/lib/toast.server";
import type { Route } from "./+types/login";

export const meta: Route.MetaFunction = () => [{ title: "Sign in · Soundtrail" }];

export function loader({ request }: Route.LoaderArgs) {
  const redirectTo = safeRedirectPath(new URL(request.url).searchParams.get("redirectTo"));
  return { redirectTo };
}

export async function action({ request }: Route.ActionArgs) {
  const values = formValues(await request.formData());
  const parsed = loginSchema.safeParse(values);
  if (!parsed.success) {
    return data({ errors: fieldErrors(parsed.error), email: values.email ?? "" }, { status: 400 });
  }
  const result = await signInWithEmail({
    email: parsed.data.email as string,
    password: parsed.data.password as string,
    headers: request.headers,
  });
  if (!result.ok) {
    return data({ errors: result.errors, email: values.email ?? "" }, failureInit(result));
  }
  result.headers.append(
    "Set-Cookie",
    flashToastCookie({ type: "success", title: "Welcome back!" }),
  );
  return redirect(safeRedirectPath(parsed.data.redirectTo) ?? "/feed", { headers: result.headers });
}

export default function Login({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isSubmitting = navigation.state === "submitting";
  const signupHref = loaderData.redirectTo
    ? `/auth/signup?${new URLSearchParams({ redirectTo: loaderData.redirectTo })}`
    : "/auth/signup";
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
      <Form method="post" className="flex flex-col gap-4" noValidate>
        <FormErrors errors={actionData?.errors.form} />
        {loaderData.redirectTo ? (
          <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
        ) : null}
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={actionData?.email}
          errors={actionData?.errors.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          errors={actionData?.errors.password}
        />
        <Button type="submit" disabled={isSubmitting} className="mt-2">
          {isSubmitting ? "Signing in…" : "Sign in"}
        </Button>
      </Form>
    </AuthCard>
  );
}
