import { data, Form, redirect, useNavigation } from "react-router";
import { z } from "zod";
import { AuthCard } from "~/components/layout/auth-card";
import { Button } from "~/components/ui/button";
import { FormErrors } from "~/components/ui/field";
import {
  DisplayNameField,
  EmailField,
  NewPasswordField,
  UsernameField,
} from "~/features/auth/components/account-fields";
import { requireUser } from "~/features/auth/guards.server";
import { upgradeGuest } from "~/features/auth/guest.server";
import { formValues, signupSchema } from "~/features/auth/schemas";
import { invalidForm } from "~/lib/forms";
import { refuse } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/upgrade";

export const meta: Route.MetaFunction = () => [{ title: "Save your account · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  if (!viewer.isGuest) throw redirect("/settings");
  return { username: viewer.username };
}

const upgradeSchema = signupSchema.refine((v) => Boolean(v.email), {
  path: ["email"],
  message: "Enter your e-mail address.",
});

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const values = formValues(await request.formData());
  const echo = {
    email: values.email ?? "",
    username: values.username ?? "",
    displayName: values.displayName ?? "",
  };
  const parsed = upgradeSchema.safeParse(values);
  if (!parsed.success) {
    return data({ ...invalidForm(parsed.error), values: echo }, { status: 400 });
  }
  const email = z.string().parse(parsed.data.email);
  const result = await upgradeGuest({
    userId: viewer.id,
    email,
    password: parsed.data.password as string,
    username: parsed.data.username,
    displayName: parsed.data.displayName,
    headers: request.headers,
  });
  if (!result.ok) return refuse(result, { values: echo });
  // Not a page of its own: once saved, this is no longer a guest and the loader would move on.
  return redirectWithToast("/feed", {
    type: "success",
    title: "Your account is saved",
    description: `Everything you shared stays. Open the link we sent to ${email} to confirm it.`,
  });
}

export default function Upgrade({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const errors = actionData?.fieldErrors;
  return (
    <AuthCard
      title="Save your account"
      description="Add an e-mail and a password. Your posts, likes and follows stay as they are."
    >
      <Form method="post" className="flex flex-col gap-4" noValidate>
        <FormErrors message={actionData?.message} />
        <EmailField defaultValue={actionData?.values.email} errors={errors?.email} />
        <NewPasswordField errors={errors?.password} />
        <UsernameField
          defaultValue={actionData?.values.username ?? loaderData.username}
          errors={errors?.username}
        />
        <DisplayNameField
          defaultValue={actionData?.values.displayName}
          errors={errors?.displayName}
        />
        <Button type="submit" disabled={navigation.state === "submitting"}>
          Save my account
        </Button>
      </Form>
    </AuthCard>
  );
}
