import { useEffect } from "react";
import { Form, Link, useNavigation, useRevalidator } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Button, buttonClasses } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Icon } from "~/components/ui/icon";
import { RelativeTime } from "~/components/ui/relative-time";
import { SectionHeader } from "~/components/ui/section-header";
import { SendStatus } from "~/components/ui/send-status";
import { requireUser } from "~/features/auth/guards.server";
import { EXPORT_KEEP_DAYS } from "~/features/settings/constants";
import { getLatestDataExport, requestDataExport } from "~/features/settings/export-archive.server";
import { keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-data";

export const meta: Route.MetaFunction = () => [{ title: "Your data · Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  return { latest: await getLatestDataExport({ userId: viewer.id }) };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  await requestDataExport({ userId: viewer.id });
  return redirectWithToast("/settings/data", {
    type: "success",
    title: "Preparing your data",
    description: "This page shows the progress; we also e-mail you the link when it is ready.",
  });
}

function sizeOf(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * A save sent while the network is down comes back as a NetworkFailure for the form to keep,
 * show and send again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return keepOnNetworkFailure(serverAction);
}

export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function DataSettings({ loaderData }: Route.ComponentProps) {
  const { latest } = loaderData;
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const isRunning = latest?.status === "running";
  const isStarting = navigation.formMethod === "POST";
  // Not started twice by itself: after a network failure, the person's Retry (ADR 037).
  const prepare = useFormResend("export", { repeat: false });
  // While the archive is prepared, ask again every two seconds for its progress (not while
  // offline: that load would fail and take the page).
  useEffect(() => {
    if (!isRunning) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle" && navigator.onLine) void revalidator.revalidate();
    }, 2000);
    return () => clearInterval(timer);
  }, [isRunning, revalidator]);

  return (
    <div className="flex flex-col gap-6">
      <Card>
        <SectionHeader title="Your data">
          Take a copy of everything you created here: your profile, posts with their images,
          comments, likes, follows, blocks, notifications and settings, as a zip of JSON files with
          your pictures. Nothing of other people's private posts is in it.
        </SectionHeader>
        {isRunning ? (
          <div className="flex flex-col gap-2" role="status">
            <label htmlFor="export-progress" className="text-sm font-medium">
              Preparing your archive… {latest.progress}%
            </label>
            <progress
              id="export-progress"
              max={100}
              value={latest.progress}
              className="h-2 w-full accent-[var(--primary)]"
            />
            <p className="text-sm text-muted-foreground">
              You can leave this page: we e-mail you the link when it is ready.
            </p>
          </div>
        ) : (
          <div className="flex flex-col gap-4">
            {latest?.status === "ready" ? (
              <div className="flex flex-col gap-2 rounded-lg border border-border p-4">
                <p className="text-sm">
                  Your archive from <RelativeTime iso={latest.createdAt} /> is ready
                  {latest.byteSize ? ` (${sizeOf(latest.byteSize)})` : ""}. It stays here for{" "}
                  {EXPORT_KEEP_DAYS} days.
                </p>
                <a
                  href={`/settings/data/export/${latest.id}`}
                  download
                  className={buttonClasses("primary", "md", "self-start")}
                >
                  <Icon name="download" className="size-4" />
                  Download my data (zip)
                </a>
              </div>
            ) : latest?.status === "failed" ? (
              <p role="alert" className="text-sm text-danger">
                Preparing your archive did not finish. Please try again.
              </p>
            ) : null}
            <Form ref={prepare.formRef} method="post" className="flex flex-wrap items-center gap-2">
              <input type="hidden" name="intent" value="export" />
              <Button
                type="submit"
                variant={latest?.status === "ready" ? "secondary" : "primary"}
                disabled={isStarting}
              >
                {isStarting
                  ? "Starting…"
                  : latest?.status === "ready"
                    ? "Prepare a new archive"
                    : "Prepare my data"}
              </Button>
              <SendStatus state={prepare.state} onRetry={prepare.retryNow} />
            </Form>
            <p className="text-sm text-muted-foreground">
              Just the text, right now?{" "}
              <a
                href="/settings/data/export"
                download
                className="font-medium text-primary underline"
              >
                Download it as one JSON file
              </a>
              .
            </p>
          </div>
        )}
      </Card>
      <Card>
        <h3 className="text-lg font-semibold">Leaving?</h3>
        <p className="mt-1 text-sm text-muted-foreground">
          You can delete your account under{" "}
          <Link to="/settings/account" className="font-medium text-primary underline">
            Account
          </Link>
          . Download your data first if you want to keep it.
        </p>
      </Card>
    </div>
  );
}
