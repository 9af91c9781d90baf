import { data, Form, Link, useNavigation } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { ColorModeSwitch } from "~/components/layout/color-mode-switch";
import { Logo } from "~/components/layout/logo";
import { Button } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { readUnsubscribeToken, type UnsubscribeKind } from "~/features/mail/preferences.server";
import { isNotificationKind, NOTIFICATION_KIND_LABELS } from "~/features/notifications/kinds";
import { isSubscribedTo, setEmailPreference } from "~/features/notifications/preferences.server";
import { useColorModePreference } from "~/lib/use-color-mode";
import type { Route } from "./+types/unsubscribe";

export const meta: Route.MetaFunction = () => [
  { title: "Unsubscribe · Soundtrail" },
  { name: "robots", content: "noindex" },
];

/** What the link is about, as the page says it ("announcements", "likes on your posts"). */
function topicOf(kind: UnsubscribeKind): string {
  return isNotificationKind(kind)
    ? `e-mails about ${NOTIFICATION_KIND_LABELS[kind].toLowerCase()}`
    : "announcements";
}

const INVALID =
  "This unsubscribe link is not valid. Copy the whole link from the mail, or change your e-mail settings after signing in.";

export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token");
  const target = readUnsubscribeToken(token);
  if (!target) return data({ state: "invalid" as const }, { status: 400 });
  const isSubscribed = await isSubscribedTo(target);
  return {
    state: isSubscribed ? ("subscribed" as const) : ("unsubscribed" as const),
    topic: topicOf(target.kind),
  };
}

/**
 * Works signed out: the token in the link says who. A mail program's RFC 8058 one-click
 * request (`List-Unsubscribe=One-Click`) lands here too and unsubscribes the same way.
 */
export async function action({ request }: Route.ActionArgs) {
  const token = new URL(request.url).searchParams.get("token");
  const target = readUnsubscribeToken(token);
  if (!target) return data({ state: "invalid" as const }, { status: 400 });
  const form = await request.formData();
  const isSubscribed = form.get("intent") === "resubscribe";
  const saved = await setEmailPreference({ ...target, isSubscribed });
  if (!saved) return data({ state: "invalid" as const }, { status: 404 });
  return {
    state: isSubscribed ? ("resubscribed" as const) : ("done" as const),
    topic: topicOf(target.kind),
  };
}

export default function Unsubscribe({ loaderData, actionData }: Route.ComponentProps) {
  const colorMode = useColorModePreference();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const state = actionData?.state ?? loaderData.state;
  const topic =
    (actionData && "topic" in actionData ? actionData.topic : undefined) ??
    ("topic" in loaderData ? loaderData.topic : "announcements");
  return (
    <div className="flex min-h-dvh flex-col bg-card">
      <header className="mx-auto flex h-16 w-full max-w-md items-center justify-between px-4">
        <Logo />
        <ColorModeSwitch current={colorMode} />
      </header>
      <main id="main" className="mx-auto w-full max-w-md flex-1 px-4 pt-4 pb-16">
        {state === "invalid" ? (
          <AuthCard title="Link not valid">
            <p role="alert">{INVALID}</p>
          </AuthCard>
        ) : state === "subscribed" ? (
          <AuthCard
            title={`Unsubscribe from ${topic}?`}
            description={`You will stop getting Soundtrail’s ${topic} by e-mail. Mail about your account (confirmations, security) still reaches you.`}
          >
            <Form method="post">
              <input type="hidden" name="intent" value="unsubscribe" />
              <Button type="submit" disabled={busy} className="w-full">
                <Icon name="bell-off" className="size-4" />
                Unsubscribe
              </Button>
            </Form>
          </AuthCard>
        ) : state === "resubscribed" ? (
          <AuthCard title="Welcome back">
            <p role="status">You will get Soundtrail’s {topic} again.</p>
            <p className="mt-4">
              <Link to="/feed" className="font-medium text-primary underline">
                Go to Soundtrail
              </Link>
            </p>
          </AuthCard>
        ) : (
          <AuthCard title="You are unsubscribed">
            <p role="status" className="flex items-start gap-2">
              <Icon name="circle-check" className="mt-0.5 size-5 shrink-0 text-primary" />
              You will no longer get Soundtrail’s {topic}.
            </p>
            <Form method="post" className="mt-6">
              <input type="hidden" name="intent" value="resubscribe" />
              <p className="mb-2 text-sm text-muted-foreground">Unsubscribed by mistake?</p>
              <Button type="submit" variant="secondary" disabled={busy}>
                Subscribe again
              </Button>
            </Form>
          </AuthCard>
        )}
      </main>
    </div>
  );
}
