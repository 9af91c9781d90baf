import { data, Form, Link, redirect, useNavigation } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { Button } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import { NewPasswordField } from "~/features/auth/components/account-fields";
import { resetPassword } from "~/features/auth/recovery.server";
import { formValues } from "~/features/auth/schemas";
import { formFailure } from "~/lib/forms";
import { refuse } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/reset-password";

export const meta: Route.MetaFunction = () => [{ title: "Choose a new password · Soundtrail" }];

export function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token");
  if (!token) throw redirect("/auth/forgot-password");
  return { token };
}

export async function action({ request }: Route.ActionArgs) {
  const { token, password } = formValues(await request.formData());
  if (!password) {
    return data(formFailure({ password: ["Choose a new password."] }), { status: 400 });
  }
  const result = await resetPassword({ token: token ?? "", password, headers: request.headers });
  if (!result.ok) return refuse(result);
  return redirectWithToast("/auth/login", {
    type: "success",
    title: "Password changed",
    description: "Sign in with your new password. Every other device was signed out.",
  });
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isLinkBad = Boolean(actionData?.message);
  return (
    <AuthCard
      title="Choose a new password"
      description="Setting it signs you out on every other device."
    >
      <Form method="post" className="flex flex-col gap-4" noValidate>
        <FormErrors message={actionData?.message} />
        {isLinkBad ? (
          <Link to="/auth/forgot-password" className="font-medium text-primary underline">
            Send me a new link
          </Link>
        ) : null}
        <input type="hidden" name="token" value={loaderData.token} />
        <NewPasswordField errors={actionData?.fieldErrors.password} />
        <Button type="submit" disabled={navigation.state === "submitting"}>
          Save new password
        </Button>
      </Form>
    </AuthCard>
  );
}
