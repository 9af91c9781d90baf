CREATE TABLE "journey_keys" (
	"user_id" text NOT NULL,
	"kind" smallint NOT NULL,
	"artist_key" text NOT NULL,
	"key" text NOT NULL,
	"plays" integer NOT NULL,
	"first_at" timestamp (0) with time zone,
	"months" integer[],
	CONSTRAINT "journey_keys_user_id_kind_artist_key_key_pk" PRIMARY KEY("user_id","kind","artist_key","key")
);
--> statement-breakpoint
ALTER TABLE "journey_keys" ADD CONSTRAINT "journey_keys_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "journey_keys_top_idx" ON "journey_keys" USING btree ("user_id","kind","plays" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "journey_keys_first_idx" ON "journey_keys" USING btree ("user_id","kind","first_at");--> statement-breakpoint
CREATE INDEX "journey_months_top_idx" ON "journey_months" USING btree ("user_id","kind","month","plays" DESC NULLS LAST);--> statement-breakpoint
-- The lifetime sums start from nothing: every person's months are aggregated again by the job.
DELETE FROM "journey_month_revs";--> statement-breakpoint
DELETE FROM "journey_months";--> statement-breakpoint
DELETE FROM "journey_days";--> statement-breakpoint
INSERT INTO "jobs" ("kind", "payload", "key", "priority")
  SELECT DISTINCT 'journey.aggregate', jsonb_build_object('userId', "user_id"), "user_id", 3
  FROM "listen_days"
ON CONFLICT ("kind", "key") WHERE status = 'queued' and key is not null DO NOTHING;
