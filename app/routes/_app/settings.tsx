import { data, Form } from "react-router";
import { ColorModeSwitch } from "~/components/layout/color-mode-switch";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { PageHeader } from "~/components/ui/page-header";
import { changePassword } from "~/features/auth/account-changes.server";
import { failureInit } from "~/features/auth/accounts.server";
import { SecuritySettings } from "~/features/auth/components/security-settings";
import { formValues } from "~/features/auth/schemas";
import {
  confirmTotpEnrollment,
  disableTwoFactor,
  getSecurityOverview,
  qrCodeOf,
  startTotpEnrollment,
} from "~/features/auth/two-factor.server";
import { requireUser } from "~/lib/guards.server";
import { useColorModePreference } from "~/lib/use-color-mode";
import type { Route } from "./+types/settings";

export const meta: Route.MetaFunction = () => [{ title: "Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  return { security: await getSecurityOverview(viewer.id), isGuest: viewer.isGuest };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const values = formValues(await request.formData());
  const intent = values.intent ?? "";
  const { headers } = request;

  if (intent === "2fa-start") {
    const result = await startTotpEnrollment({ headers, password: values.password });
    if (!result.ok)
      return data({ intent, ok: false as const, errors: result.errors }, failureInit(result));
    return { intent, ok: true as const, secret: result.secret, uri: result.uri, qr: result.qr };
  }
  if (intent === "2fa-confirm") {
    const result = await confirmTotpEnrollment({
      userId: viewer.id,
      code: values.code ?? "",
      headers,
    });
    if (!result.ok) {
      const uri = values.uri ?? "";
      return data(
        {
          intent,
          ok: false as const,
          errors: result.errors,
          secret: values.secret ?? "",
          uri,
          qr: qrCodeOf(uri),
        },
        failureInit(result),
      );
    }
    return data(
      { intent, ok: true as const, backupCodes: result.backupCodes },
      { headers: result.headers },
    );
  }
  if (intent === "2fa-disable") {
    const result = await disableTwoFactor({
      userId: viewer.id,
      headers,
      password: values.password,
      code: values.code,
    });
    if (!result.ok)
      return data({ intent, ok: false as const, errors: result.errors }, failureInit(result));
    return data({ intent, ok: true as const }, { headers: result.headers });
  }
  if (intent === "password") {
    const result = await changePassword({
      headers,
      currentPassword: values.currentPassword ?? "",
      newPassword: values.newPassword ?? "",
      code: values.code,
    });
    if (!result.ok)
      return data({ intent, ok: false as const, errors: result.errors }, failureInit(result));
    return data({ intent, ok: true as const }, { headers: result.headers });
  }
  return data(
    { intent, ok: false as const, errors: { form: ["Unknown action."] } },
    { status: 400 },
  );
}

export default function Settings({ loaderData }: Route.ComponentProps) {
  const colorMode = useColorModePreference();
  return (
    <>
      <PageHeader title="Settings">Tune Soundtrail to your taste.</PageHeader>
      <Card>
        <h2 className="text-lg font-semibold">Appearance</h2>
        <p className="mt-1 mb-4 text-sm text-muted-foreground">
          Follow your device, or always use the light or dark theme.
        </p>
        <ColorModeSwitch current={colorMode} />
      </Card>
      {loaderData.isGuest ? null : <SecuritySettings {...loaderData.security} />}
      <Card className="mt-6">
        <h2 className="text-lg font-semibold">Sessions</h2>
        <p className="mt-1 mb-4 text-sm text-muted-foreground">
          Lost a phone or used a shared computer? End every session, including this one.
        </p>
        <Form method="post" action="/auth/logout">
          <input type="hidden" name="everywhere" value="1" />
          <Button type="submit" variant="secondary">
            Sign out everywhere
          </Button>
        </Form>
      </Card>
    </>
  );
}
