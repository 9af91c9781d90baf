import { data, Form, redirect, useNavigation } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { Button } from "~/components/ui/button";
import { Field, FormErrors } from "~/components/ui/field";
import { confirmEmail, resendConfirmation } from "~/features/auth/accounts.server";
import { formValues } from "~/features/auth/schemas";
import { formFailure } from "~/lib/forms";
import { refuse } from "~/lib/route-errors.server";
import { flashToastCookie } from "~/lib/toast.server";
import type { Route } from "./+types/confirm";

export const meta: Route.MetaFunction = () => [{ title: "Confirm your e-mail · Soundtrail" }];

export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token");
  if (!token) return { problem: null };
  const result = await confirmEmail({ token, headers: request.headers });
  if (result.ok) {
    result.headers.append(
      "Set-Cookie",
      await flashToastCookie({
        type: "success",
        title: "E-mail confirmed",
        description: "Welcome to Soundtrail!",
      }),
    );
    throw redirect("/feed", { headers: result.headers });
  }
  return refuse(result, { problem: result.message ?? "This link is not valid." });
}

export async function action({ request }: Route.ActionArgs) {
  const { email } = formValues(await request.formData());
  if (!email?.includes("@")) {
    return data(
      { sent: false, ...formFailure({}, "Enter the e-mail address you signed up with.") },
      { status: 400 },
    );
  }
  const result = await resendConfirmation({ email, headers: request.headers });
  if (!result.ok) return refuse(result, { sent: false });
  return { sent: true } as const;
}

export default function Confirm({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  return (
    <AuthCard
      title="Confirm your e-mail"
      description="The link in your confirmation e-mail brings you here."
    >
      {loaderData.problem ? <FormErrors message={loaderData.problem} /> : null}
      {actionData?.sent ? (
        <p role="status" className="rounded-lg border border-border bg-muted p-4 text-sm">
          If that address has an account waiting for confirmation, a new link is on its way.
        </p>
      ) : (
        <Form method="post" className="mt-4 flex flex-col gap-4" noValidate>
          <p className="text-sm text-muted-foreground">
            Need a new link? Enter your address and we will send one.
          </p>
          <FormErrors message={actionData && !actionData.sent ? actionData.message : undefined} />
          <Field label="Email" name="email" type="email" autoComplete="email" required />
          <Button type="submit" variant="secondary" disabled={navigation.state === "submitting"}>
            Send a new link
          </Button>
        </Form>
      )}
    </AuthCard>
  );
}
