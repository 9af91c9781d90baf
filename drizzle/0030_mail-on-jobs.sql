-- Sending a mail is a job (core/jobs): unsent mails get theirs, due when they were.
INSERT INTO "jobs" ("kind", "payload", "key", "priority", "max_attempts", "run_at")
  SELECT 'mail.send', jsonb_build_object('mailId', "id"), "id"::text, 0, 8,
    CASE WHEN "status" = 'sending' THEN now() ELSE "next_attempt_at" END
  FROM "mail_outbox" WHERE "status" IN ('pending', 'failed', 'sending');--> statement-breakpoint
DROP INDEX "mail_outbox_due_idx";--> statement-breakpoint
CREATE INDEX "mail_outbox_status_idx" ON "mail_outbox" USING btree ("status");--> statement-breakpoint
ALTER TABLE "mail_outbox" DROP COLUMN "next_attempt_at";--> statement-breakpoint
ALTER TABLE "mail_outbox" DROP COLUMN "locked_until";
