import { data, Form, Link, redirect, useNavigation } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { Button } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import { Icon } from "~/components/ui/icon";
import { CodeField } from "~/features/auth/components/account-fields";
import { codeSchema, formValues } from "~/features/auth/schemas";
import { verifySecondFactor } from "~/features/auth/two-factor.server";
import { invalidForm } from "~/lib/forms";
import { safeRedirectPath } from "~/lib/redirects";
import { refuse } from "~/lib/route-errors.server";
import { flashToastCookie } from "~/lib/toast.server";
import type { Route } from "./+types/two-factor";

export const meta: Route.MetaFunction = () => [{ title: "Two-step sign-in · Soundtrail" }];

export function loader({ request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  return {
    redirectTo: safeRedirectPath(url.searchParams.get("redirectTo")),
    isBackupCode: url.searchParams.get("backup") === "1",
  };
}

export async function action({ request }: Route.ActionArgs) {
  const values = formValues(await request.formData());
  const parsed = codeSchema.safeParse(values);
  if (!parsed.success)
    return data({ ...invalidForm(parsed.error), isOver: false }, { status: 400 });
  const result = await verifySecondFactor({
    code: parsed.data.code,
    isBackupCode: values.kind === "backup",
    headers: request.headers,
  });
  if (!result.ok) {
    return refuse(result, { isOver: result.code === "challenge_over" });
  }
  result.headers.append(
    "Set-Cookie",
    await flashToastCookie({ type: "success", title: "Welcome back!" }),
  );
  return redirect(safeRedirectPath(values.redirectTo) ?? "/feed", { headers: result.headers });
}

export default function TwoFactor({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const { redirectTo, isBackupCode } = loaderData;
  const params = new URLSearchParams(redirectTo ? { redirectTo } : {});
  if (!isBackupCode) params.set("backup", "1");
  const switchHref = `/auth/two-factor${params.size ? `?${params}` : ""}`;
  return (
    <AuthCard
      title="Two-step sign-in"
      description={
        isBackupCode
          ? "Enter one of the backup codes you saved when you turned on two-step sign-in. Each works once."
          : "Open your authenticator app and enter the 6-digit code it shows for Soundtrail."
      }
      footer={
        <Link to={switchHref} replace className="font-medium text-primary underline">
          {isBackupCode ? "Use a code from your authenticator app" : "Use a backup code instead"}
        </Link>
      }
    >
      <Form method="post" className="flex flex-col gap-4" noValidate>
        <FormErrors message={actionData?.message} />
        {actionData?.isOver ? (
          <Link to="/auth/login" className="font-medium text-primary underline">
            Sign in again
          </Link>
        ) : null}
        <input type="hidden" name="kind" value={isBackupCode ? "backup" : "totp"} />
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        <CodeField
          inputMode={isBackupCode ? "text" : "numeric"}
          autoFocus
          errors={actionData?.fieldErrors.code}
        />
        <Button type="submit" disabled={navigation.state === "submitting"}>
          <Icon name="shield-check" className="size-4" />
          Verify
        </Button>
      </Form>
    </AuthCard>
  );
}
