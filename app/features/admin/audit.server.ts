import { count, desc, eq } from "drizzle-orm";
import { getDb, type Tx } from "~/db/client.server";
import { auditLog, profiles } from "~/db/schema";
import { type AdminActor, assertAdmin } from "./access.server";
import { type Paged, pageInfo, pageOffset } from "./paging";

/** Every kind of admin action the audit log records. */
export const AUDIT_ACTIONS = {
  "user.grant_admin": "Granted admin",
  "user.revoke_admin": "Revoked admin",
  "user.ban": "Banned",
  "user.unban": "Unbanned",
  "comment.delete": "Deleted a comment",
  "post.delete": "Deleted a post",
  "report.resolve": "Resolved a report",
  "campaign.create": "Created a bulk e-mail",
  "campaign.send_batch": "Sent a bulk e-mail batch",
  "email.send_batch": "Sent a batch of e-mails (no campaign)",
  "job.retry": "Retried a background job",
  "job.discard": "Discarded a background job",
  "user.create": "Created an account (service role)",
  "user.update": "Changed an account (service role)",
  "user.delete": "Deleted an account (service role)",
  "user.invite": "Invited someone (service role)",
  "user.generate_link": "Made a sign-in link (service role)",
  "user.sign_out": "Signed a session out (service role)",
  "factor.delete": "Removed a two-step factor (service role)",
} as const;
export type AuditAction = keyof typeof AUDIT_ACTIONS;

export interface AuditEntryInput {
  action: AuditAction;
  targetType: "user" | "comment" | "post" | "report" | "campaign" | "email" | "job";
  targetId: string | null;
  details?: Record<string, unknown>;
}

/** Writes one audit row; call it inside the transaction of the change it records. */
export async function recordAudit(tx: Tx, actor: AdminActor, entry: AuditEntryInput) {
  await tx.insert(auditLog).values({
    actorId: actor.id,
    actorLabel: actor.username,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    details: entry.details ?? {},
  });
}

/** The label of the token API's service-role key in the audit log (it has no account). */
export const SERVICE_ROLE_ACTOR = "service_role";

/**
 * Writes one audit row for the token API's admin endpoints (`/auth/v1/admin/*`), whose caller
 * is the service-role key rather than a person: no actor id, labelled `service_role`.
 */
export async function recordServiceRoleAudit(tx: Tx, entry: AuditEntryInput) {
  await tx.insert(auditLog).values({
    actorId: null,
    actorLabel: SERVICE_ROLE_ACTOR,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    details: entry.details ?? {},
  });
}

export interface AuditEntry {
  id: string;
  actorId: string | null;
  actorUsername: string;
  action: string;
  targetType: string;
  targetId: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

/** The audit log, newest first, 12 a page. */
export async function listAuditLog(options: {
  actorId: string;
  page: number;
}): Promise<Paged<AuditEntry>> {
  await assertAdmin(options.actorId);
  const db = getDb();
  const [totals] = await db.select({ total: count() }).from(auditLog);
  const info = pageInfo(totals?.total ?? 0, options.page);
  const rows = await db
    .select({
      id: auditLog.id,
      actorId: auditLog.actorId,
      actorLabel: auditLog.actorLabel,
      actorUsername: profiles.username,
      action: auditLog.action,
      targetType: auditLog.targetType,
      targetId: auditLog.targetId,
      details: auditLog.details,
      createdAt: auditLog.createdAt,
    })
    .from(auditLog)
    .leftJoin(profiles, eq(profiles.userId, auditLog.actorId))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(info.pageSize)
    .offset(pageOffset(info));
  return {
    ...info,
    items: rows.map(({ actorLabel, actorUsername, ...row }) => ({
      ...row,
      actorUsername: actorUsername ?? actorLabel,
    })),
  };
}
