import { AUDIT_ACTIONS, listAuditLog } from "~/features/admin/audit.server";
import { LoadError } from "~/features/admin/components/load-error";
import { Pager } from "~/features/admin/components/pager";
import { ScrollRegion } from "~/features/admin/components/scroll-region";
import { LOAD_ERRORS } from "~/features/admin/errors";
import { formatDateTime } from "~/features/admin/format";
import { parsePageParam } from "~/features/admin/paging";
import { loadAdminData } from "~/features/admin/route-helpers.server";
import { requireAdmin } from "~/features/auth/guards.server";
import type { Route } from "./+types/audit";

export const meta: Route.MetaFunction = () => [{ title: "Audit log · Admin · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireAdmin(context, request);
  const page = parsePageParam(new URL(request.url).searchParams.get("page"));
  const result = await loadAdminData(request, LOAD_ERRORS.audit, () =>
    listAuditLog({ actorId: viewer.id, page }),
  );
  return {
    log: result.data
      ? {
          ...result.data,
          items: result.data.items.map((entry) => ({
            ...entry,
            label: AUDIT_ACTIONS[entry.action as keyof typeof AUDIT_ACTIONS] ?? entry.action,
          })),
        }
      : null,
    error: result.error,
  };
}

function describeDetails(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined && value !== "")
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" · ");
}

export default function AdminAudit({ loaderData }: Route.ComponentProps) {
  const { log, error } = loaderData;
  if (!log) return <LoadError message={error ?? LOAD_ERRORS.audit} />;
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading" className="mb-1 text-lg font-semibold">
        Audit log <span className="font-normal text-muted-foreground">({log.total})</span>
      </h2>
      <p className="mb-3 text-sm text-muted-foreground">
        Every admin action, newest first. Entries cannot be changed or deleted.
      </p>
      <ScrollRegion label="Audit log table">
        <table className="w-full min-w-[48rem] text-left text-sm">
          <thead className="bg-card text-muted-foreground">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                When
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Who
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                What
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Target
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Details
              </th>
            </tr>
          </thead>
          <tbody>
            {log.items.length === 0 ? (
              <tr>
                <td colSpan={5} className="px-3 py-6 text-center text-muted-foreground">
                  No admin actions yet.
                </td>
              </tr>
            ) : null}
            {log.items.map((entry) => (
              <tr key={entry.id} className="border-t border-border align-top">
                <td className="px-3 py-2 whitespace-nowrap">
                  <time dateTime={new Date(entry.createdAt).toISOString()}>
                    {formatDateTime(entry.createdAt)}
                  </time>
                </td>
                <td className="px-3 py-2">@{entry.actorUsername}</td>
                <td className="px-3 py-2 font-medium">{entry.label}</td>
                <td className="px-3 py-2">
                  <span className="text-muted-foreground">{entry.targetType}</span>{" "}
                  <span className="font-mono text-xs break-all">{entry.targetId ?? "—"}</span>
                </td>
                <td className="px-3 py-2 break-words">{describeDetails(entry.details)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <Pager info={log} label="Audit log" />
    </section>
  );
}
