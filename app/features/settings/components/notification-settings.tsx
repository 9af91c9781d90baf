import { Form, useNavigation } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { SectionHeader } from "~/components/ui/section-header";
import { SendStatus } from "~/components/ui/send-status";
import type { NotificationSettings } from "../notifications.server";

function Toggle({
  name,
  label,
  defaultChecked,
}: {
  name: string;
  label: string;
  defaultChecked: boolean;
}) {
  return (
    <input
      type="checkbox"
      name={name}
      aria-label={label}
      defaultChecked={defaultChecked}
      className="size-5 accent-primary"
    />
  );
}

/** Per kind of notification: in the app, and by e-mail. */
export function NotificationSettingsForm({ settings }: { settings: NotificationSettings }) {
  const navigation = useNavigation();
  const isSaving = navigation.state === "submitting" && navigation.formMethod === "POST";
  // The boxes name the state wanted: a save the network let down goes again (ADR 037).
  const save = useFormResend("notifications");
  return (
    <Card>
      <SectionHeader title="Notifications">
        Choose what you hear about in the app (the bell and pop-ups) and by e-mail. The unsubscribe
        link in a mail switches off the same setting here.
      </SectionHeader>
      <Form ref={save.formRef} method="post" className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="notifications" />
        <table className="w-full text-sm">
          <caption className="sr-only">Notifications by kind and channel</caption>
          <thead>
            <tr className="border-b border-border text-left">
              <th scope="col" className="py-2 font-medium">
                Kind
              </th>
              <th scope="col" className="w-24 py-2 text-center font-medium">
                In the app
              </th>
              <th scope="col" className="w-24 py-2 text-center font-medium">
                By e-mail
              </th>
            </tr>
          </thead>
          <tbody>
            {settings.kinds.map(({ kind, label, inApp, email }) => (
              <tr key={kind} className="border-b border-border">
                <th scope="row" className="py-3 text-left font-normal">
                  {label}
                </th>
                <td className="py-3 text-center">
                  <Toggle
                    name={`${kind}.inApp`}
                    label={`${label} in the app`}
                    defaultChecked={inApp}
                  />
                </td>
                <td className="py-3 text-center">
                  <Toggle
                    name={`${kind}.email`}
                    label={`${label} by e-mail`}
                    defaultChecked={email}
                  />
                </td>
              </tr>
            ))}
            <tr>
              <th scope="row" className="py-3 text-left font-normal">
                Announcements from Soundtrail
              </th>
              <td className="py-3 text-center text-muted-foreground">
                <span aria-hidden="true">—</span>
                <span className="sr-only">Not shown in the app</span>
              </td>
              <td className="py-3 text-center">
                <Toggle
                  name="announcements.email"
                  label="Announcements from Soundtrail by e-mail"
                  defaultChecked={settings.announcements}
                />
              </td>
            </tr>
          </tbody>
        </table>
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" disabled={isSaving}>
            {isSaving ? "Saving…" : "Save notification settings"}
          </Button>
          <SendStatus state={save.state} onRetry={save.retryNow} verb="save" />
        </div>
      </Form>
    </Card>
  );
}
