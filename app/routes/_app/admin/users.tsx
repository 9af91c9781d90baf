import { data, useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Icon } from "~/components/ui/icon";
import { shownName } from "~/core/person";
import { type ActionResult, announceAdminAction } from "~/features/admin/components/action-toast";
import { LoadError } from "~/features/admin/components/load-error";
import { Pager } from "~/features/admin/components/pager";
import { ReasonDialog } from "~/features/admin/components/reason-dialog";
import { ScrollRegion } from "~/features/admin/components/scroll-region";
import { UserAvatar } from "~/features/admin/components/user-avatar";
import { LOAD_ERRORS } from "~/features/admin/errors";
import { formatDateTime } from "~/features/admin/format";
import { parsePageParam } from "~/features/admin/paging";
import { loadAdminData, runAdminAction } from "~/features/admin/route-helpers.server";
import { userActionSchema } from "~/features/admin/schemas";
import { banUser, listUsers, setUserAdmin, unbanUser } from "~/features/admin/users.server";
import { requireAdmin, requireAdminApi } from "~/features/auth/guards.server";
import { invalidForm, withMessage } from "~/lib/forms";
import type { Route } from "./+types/users";

export const meta: Route.MetaFunction = () => [{ title: "Users · Admin · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireAdmin(context, request);
  const page = parsePageParam(new URL(request.url).searchParams.get("page"));
  const result = await loadAdminData(request, LOAD_ERRORS.users, () =>
    listUsers({ actorId: viewer.id, page }),
  );
  return { users: result.data, error: result.error, viewerId: viewer.id };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireAdminApi(context);
  const parsed = userActionSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return data(withMessage(invalidForm(parsed.error)), { status: 400 });
  const input = parsed.data;
  const actorId = viewer.id;
  return runAdminAction(async () => {
    switch (input.intent) {
      case "grant-admin": {
        const result = await setUserAdmin({ actorId, userId: input.userId, isAdmin: true });
        return result === "unchanged" ? "Already an admin." : "Admin role granted.";
      }
      case "revoke-admin": {
        const result = await setUserAdmin({ actorId, userId: input.userId, isAdmin: false });
        return result === "unchanged" ? "Not an admin." : "Admin role removed.";
      }
      case "ban": {
        const { sessionsEnded } = await banUser({
          actorId,
          userId: input.userId,
          reason: input.reason,
        });
        return `Banned. ${sessionsEnded === 1 ? "1 session" : `${sessionsEnded} sessions`} ended.`;
      }
      case "unban":
        await unbanUser({ actorId, userId: input.userId });
        return "Ban lifted.";
    }
  });
}

/** Shows the outcome as a toast, whatever happened to the button meanwhile. */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return announceAdminAction(serverAction);
}

function ActionButton({
  intent,
  userId,
  label,
  children,
  variant = "secondary",
}: {
  intent: "grant-admin" | "revoke-admin" | "unban";
  userId: string;
  label: string;
  children: React.ReactNode;
  variant?: "secondary" | "ghost";
}) {
  const fetcher = useFetcher<ActionResult>();
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="userId" value={userId} />
      <Button
        type="submit"
        size="sm"
        variant={variant}
        aria-label={label}
        disabled={fetcher.state !== "idle"}
      >
        {children}
      </Button>
    </fetcher.Form>
  );
}

export default function AdminUsers({ loaderData }: Route.ComponentProps) {
  const { users, error, viewerId } = loaderData;
  if (!users) return <LoadError message={error ?? LOAD_ERRORS.users} />;
  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading" className="mb-3 text-lg font-semibold">
        Users <span className="font-normal text-muted-foreground">({users.total})</span>
      </h2>
      <ScrollRegion label="Users table">
        <table className="w-full min-w-[56rem] text-left text-sm">
          <thead className="bg-card text-muted-foreground">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                Person
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                E-mail
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                User ID
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Roles
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Joined
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Status
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Actions
              </th>
            </tr>
          </thead>
          <tbody>
            {users.items.length === 0 ? (
              <tr>
                <td colSpan={7} className="px-3 py-6 text-center text-muted-foreground">
                  No accounts yet.
                </td>
              </tr>
            ) : null}
            {users.items.map((row) => {
              const name = shownName(row);
              const isAdmin = row.roles.includes("admin");
              const isSelf = row.userId === viewerId;
              return (
                <tr key={row.userId} className="border-t border-border align-top">
                  <th scope="row" className="px-3 py-2 font-normal">
                    <div className="flex items-center gap-3">
                      <UserAvatar url={row.avatarUrl} name={name} />
                      <div className="min-w-0">
                        <p className="font-medium">{row.displayName || "—"}</p>
                        <p className="text-muted-foreground">@{row.username}</p>
                      </div>
                    </div>
                  </th>
                  <td className="break-all px-3 py-2">{row.email ?? "—"}</td>
                  <td className="px-3 py-2 font-mono text-xs break-all">{row.userId}</td>
                  <td className="px-3 py-2">
                    {row.roles.length ? (
                      <ul className="flex flex-wrap gap-1">
                        {row.roles.map((role) => (
                          <li
                            key={role}
                            className="rounded-full bg-accent px-2 py-0.5 text-xs font-medium text-accent-foreground"
                          >
                            {role}
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <span className="text-muted-foreground">none</span>
                    )}
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap">
                    <time dateTime={new Date(row.createdAt).toISOString()}>
                      {formatDateTime(row.createdAt)}
                    </time>
                  </td>
                  <td className="px-3 py-2">
                    {row.isBanned ? (
                      <span className="text-danger">
                        <span className="font-semibold">Banned</span>
                        {row.banReason ? `: ${row.banReason}` : null}
                      </span>
                    ) : (
                      "Active"
                    )}
                  </td>
                  <td className="px-3 py-2">
                    <div className="flex flex-wrap gap-2">
                      {isAdmin ? (
                        <ActionButton
                          intent="revoke-admin"
                          userId={row.userId}
                          label={`Remove admin role from @${row.username}`}
                        >
                          <Icon name="shield-off" className="size-4" />
                          Remove admin
                        </ActionButton>
                      ) : (
                        <ActionButton
                          intent="grant-admin"
                          userId={row.userId}
                          label={`Make admin: @${row.username}`}
                        >
                          <Icon name="shield-check" className="size-4" />
                          Make admin
                        </ActionButton>
                      )}
                      {row.isBanned ? (
                        <ActionButton
                          intent="unban"
                          userId={row.userId}
                          label={`Unban @${row.username}`}
                        >
                          <Icon name="undo-2" className="size-4" />
                          Unban
                        </ActionButton>
                      ) : isSelf ? null : (
                        <ReasonDialog
                          trigger={
                            <>
                              <Icon name="ban" className="size-4" />
                              Ban
                            </>
                          }
                          triggerLabel={`Ban @${row.username}`}
                          title={`Ban @${row.username}?`}
                          description="They are signed out everywhere at once and cannot sign in until you lift the ban. The reason is kept in the audit log."
                          confirmLabel="Ban"
                          fields={{ intent: "ban", userId: row.userId }}
                        />
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollRegion>
      <Pager info={users} label="Users" />
    </section>
  );
}
