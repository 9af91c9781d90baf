import { useEffect, useRef } from "react";
import { data, useFetcher } from "react-router";
import { z } from "zod";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Icon } from "~/components/ui/icon";
import { EmailComposer } from "~/features/admin/components/email-composer";
import { LoadError } from "~/features/admin/components/load-error";
import { Pager } from "~/features/admin/components/pager";
import { ScrollRegion } from "~/features/admin/components/scroll-region";
import { SendStatus } from "~/features/admin/components/send-status";
import { useBulkSender } from "~/features/admin/components/use-bulk-sender";
import {
  bulkSender,
  type CampaignForSending,
  createCampaign,
  getCampaignForSending,
  listAllUsers,
  listCampaigns,
} from "~/features/admin/email.server";
import { LOAD_ERRORS } from "~/features/admin/errors";
import { formatDateTime } from "~/features/admin/format";
import { parsePageParam } from "~/features/admin/paging";
import { loadAdminData } from "~/features/admin/route-helpers.server";
import { campaignSchema } from "~/features/admin/schemas";
import { requireAdmin, requireAdminApi } from "~/features/auth/guards.server";
import { type FormFailure, formFailure, invalidForm } from "~/lib/forms";
import type { Route } from "./+types/email";

export const meta: Route.MetaFunction = () => [{ title: "Bulk e-mail · Admin · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireAdmin(context, request);
  const page = parsePageParam(new URL(request.url).searchParams.get("page"));
  // Spec §8: when the full user list fails, say so and offer an empty list.
  const users = await loadAdminData(request, LOAD_ERRORS.allUsers, () =>
    listAllUsers({ actorId: viewer.id }),
  );
  const campaigns = await loadAdminData(request, LOAD_ERRORS.campaigns, () =>
    listCampaigns({ actorId: viewer.id, page }),
  );
  return {
    people: users.data ?? [],
    peopleError: users.error,
    campaigns: campaigns.data,
    campaignsError: campaigns.error,
    from: bulkSender(),
  };
}

const resumeSchema = z.object({ intent: z.literal("resume"), campaignId: z.uuid() });

type ActionData = { ok: true; campaign: CampaignForSending } | FormFailure;

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireAdminApi(context);
  const body: unknown = await request.json().catch(() => null);
  const isResume = (body as { intent?: unknown } | null)?.intent === "resume";
  const parsed = isResume ? resumeSchema.safeParse(body) : campaignSchema.safeParse(body);
  if (!parsed.success) {
    return data<ActionData>(invalidForm(parsed.error), { status: 400 });
  }
  const input = parsed.data;
  const campaign =
    "campaignId" in input
      ? await getCampaignForSending({ actorId: viewer.id, campaignId: input.campaignId })
      : await createCampaign({ actorId: viewer.id, ...input });
  return data<ActionData>({ ok: true, campaign });
}

export default function AdminEmail({ loaderData }: Route.ComponentProps) {
  const { people, peopleError, campaigns, campaignsError, from } = loaderData;
  const fetcher = useFetcher<ActionData>();
  const sender = useBulkSender();
  const handled = useRef<ActionData | undefined>(undefined);

  // A campaign was stored (or loaded to resume): send it from here, batch by batch.
  useEffect(() => {
    const result = fetcher.data;
    if (fetcher.state !== "idle" || !result || handled.current === result) return;
    handled.current = result;
    if (result.ok) void sender.send(result.campaign, result.campaign.recipients);
  }, [fetcher.state, fetcher.data, sender.send]);

  const isBusy = fetcher.state !== "idle" || sender.state.phase === "sending";
  const failure = fetcher.data && !fetcher.data.ok ? fetcher.data : undefined;

  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="compose-heading">
        <Card className="p-4 sm:p-6">
          <h2 id="compose-heading" className="mb-4 text-lg font-semibold">
            Write a bulk e-mail
          </h2>
          {peopleError ? (
            <div className="mb-4">
              <LoadError message={peopleError} />
            </div>
          ) : null}
          <EmailComposer
            people={people}
            from={from}
            isBusy={isBusy}
            failure={failure}
            onSubmit={(submission) =>
              fetcher.submit(
                { intent: "create", ...submission },
                { method: "post", encType: "application/json" },
              )
            }
          />
        </Card>
      </section>

      <SendStatus state={sender.state} onRetry={sender.retryFailed} />

      <section aria-labelledby="history-heading">
        <h2 id="history-heading" className="mb-3 flex items-center gap-2 text-lg font-semibold">
          <Icon name="rotate-ccw-clock" className="size-5" />
          Sent bulk e-mails
        </h2>
        {!campaigns ? (
          <LoadError message={campaignsError ?? LOAD_ERRORS.campaigns} />
        ) : (
          <>
            <ScrollRegion label="Sent bulk e-mails table">
              <table className="w-full min-w-[40rem] text-left text-sm">
                <thead className="bg-card text-muted-foreground">
                  <tr>
                    <th scope="col" className="px-3 py-2 font-medium">
                      Subject
                    </th>
                    <th scope="col" className="px-3 py-2 font-medium">
                      By
                    </th>
                    <th scope="col" className="px-3 py-2 font-medium">
                      When
                    </th>
                    <th scope="col" className="px-3 py-2 text-right font-medium">
                      Sent
                    </th>
                    <th scope="col" className="px-3 py-2 text-right font-medium">
                      Not yet
                    </th>
                    <th scope="col" className="px-3 py-2 font-medium">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {campaigns.items.length === 0 ? (
                    <tr>
                      <td colSpan={6} className="px-3 py-6 text-center text-muted-foreground">
                        No bulk e-mails yet.
                      </td>
                    </tr>
                  ) : null}
                  {campaigns.items.map((campaign) => {
                    const left = campaign.failed + campaign.pending;
                    return (
                      <tr key={campaign.id} className="border-t border-border">
                        <th scope="row" className="px-3 py-2 font-medium">
                          {campaign.subject}
                        </th>
                        <td className="px-3 py-2">
                          {campaign.createdBy ? `@${campaign.createdBy}` : "—"}
                        </td>
                        <td className="px-3 py-2 whitespace-nowrap">
                          {formatDateTime(campaign.createdAt)}
                        </td>
                        <td className="px-3 py-2 text-right tabular-nums">
                          {campaign.sent} of {campaign.total}
                          {campaign.uncertain > 0 ? (
                            <span
                              className="block text-xs text-muted-foreground"
                              title="Interrupted after the mail server got the whole message, before it confirmed: it may have arrived, so it is not sent again."
                            >
                              {campaign.uncertain} unconfirmed
                            </span>
                          ) : null}
                        </td>
                        <td className="px-3 py-2 text-right tabular-nums">
                          {left > 0 ? <span className="text-danger">{left}</span> : "0"}
                        </td>
                        <td className="px-3 py-2 text-right">
                          {left > 0 ? (
                            <Button
                              size="sm"
                              variant="secondary"
                              disabled={isBusy}
                              aria-label={`Send the rest of “${campaign.subject}”`}
                              onClick={() =>
                                fetcher.submit(
                                  { intent: "resume", campaignId: campaign.id },
                                  { method: "post", encType: "application/json" },
                                )
                              }
                            >
                              Send the rest
                            </Button>
                          ) : null}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </ScrollRegion>
            <Pager info={campaigns} label="Bulk e-mails" />
          </>
        )}
      </section>
    </div>
  );
}
