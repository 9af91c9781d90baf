import { data, Form, Link, useNavigation } from "react-router";
import { z } from "zod";
import { AuthCard } from "~/components/layout/auth-card";
import { Button } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import { Icon } from "~/components/ui/icon";
import { EmailField } from "~/features/auth/components/account-fields";
import { requestPasswordReset } from "~/features/auth/recovery.server";
import { formValues } from "~/features/auth/schemas";
import { formFailure } from "~/lib/forms";
import { refuse } from "~/lib/route-errors.server";
import type { Route } from "./+types/forgot-password";

export const meta: Route.MetaFunction = () => [{ title: "Reset your password · Soundtrail" }];

export function loader() {
  return null;
}

export async function action({ request }: Route.ActionArgs) {
  const { email } = formValues(await request.formData());
  if (!email || !z.email().safeParse(email.trim()).success) {
    return data(
      {
        sent: false,
        email: email ?? "",
        ...formFailure({ email: ["Enter the e-mail address of your account."] }),
      },
      { status: 400 },
    );
  }
  const result = await requestPasswordReset({ email: email.trim(), headers: request.headers });
  if (!result.ok) return refuse(result, { sent: false, email });
  return { sent: true, email: email.trim() } as const;
}

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  if (actionData?.sent) {
    return (
      <AuthCard title="Check your inbox" description="Almost there.">
        <div
          role="status"
          className="flex gap-3 rounded-lg border border-border bg-muted p-4 text-sm"
        >
          <Icon name="mail-check" className="size-5 shrink-0 text-primary" />
          <p>
            If <strong>{actionData.email}</strong> belongs to an account, we have sent it a link to
            choose a new password. It works once, for one hour.
          </p>
        </div>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Reset your password"
      description="We'll e-mail you a link to choose a new one."
      footer={
        <Link to="/auth/login" className="font-medium text-primary underline">
          Back to sign in
        </Link>
      }
    >
      <Form method="post" className="flex flex-col gap-4" noValidate>
        <FormErrors message={actionData?.message} />
        <EmailField defaultValue={actionData?.email} errors={actionData?.fieldErrors.email} />
        <Button type="submit" disabled={navigation.state === "submitting"}>
          Send me a link
        </Button>
      </Form>
    </AuthCard>
  );
}
