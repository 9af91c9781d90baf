CREATE TABLE "journey_aggregate_state" (
	"user_id" text PRIMARY KEY NOT NULL,
	"hidden" text[] DEFAULT '{}'::text[] NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "journey_days" (
	"user_id" text NOT NULL,
	"day" date NOT NULL,
	"plays" integer NOT NULL,
	"known_ms" bigint NOT NULL,
	"estimated" integer NOT NULL,
	"hours" integer[] NOT NULL,
	"visible_plays" integer NOT NULL,
	"visible_known_ms" bigint NOT NULL,
	"visible_estimated" integer NOT NULL,
	"visible_hours" integer[] NOT NULL,
	CONSTRAINT "journey_days_user_id_day_pk" PRIMARY KEY("user_id","day")
);
--> statement-breakpoint
CREATE TABLE "journey_month_revs" (
	"user_id" text NOT NULL,
	"month" date NOT NULL,
	"rev" bigint NOT NULL,
	CONSTRAINT "journey_month_revs_user_id_month_pk" PRIMARY KEY("user_id","month")
);
--> statement-breakpoint
CREATE TABLE "journey_months" (
	"user_id" text NOT NULL,
	"month" date NOT NULL,
	"kind" smallint NOT NULL,
	"artist_key" text NOT NULL,
	"key" text NOT NULL,
	"plays" integer NOT NULL,
	"names" jsonb NOT NULL,
	"artist_names" jsonb,
	"first_at" timestamp (0) with time zone,
	CONSTRAINT "journey_months_user_id_month_kind_artist_key_key_pk" PRIMARY KEY("user_id","month","kind","artist_key","key")
);
--> statement-breakpoint
ALTER TABLE "journey_aggregate_state" ADD CONSTRAINT "journey_aggregate_state_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_days" ADD CONSTRAINT "journey_days_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_month_revs" ADD CONSTRAINT "journey_month_revs_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_months" ADD CONSTRAINT "journey_months_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "journey_months_key_idx" ON "journey_months" USING btree ("user_id","kind","artist_key","key","month");--> statement-breakpoint
-- A day whose plays were all taken out keeps its row (at 0, with a new revision) until the
-- aggregate job has redone its month, so that a month emptied by deletes is noticed (ADR 032).
CREATE OR REPLACE FUNCTION "listens_rollups_apply"(p_removed "listens"[], p_added "listens"[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_removed) > 0 THEN
    PERFORM listen_days_add(p_removed, -1);
  END IF;
  IF cardinality(p_added) > 0 THEN
    PERFORM listen_days_add(p_added, 1);
  END IF;
END $$;--> statement-breakpoint
-- Existing histories are aggregated by the job, person by person, month by month (resumable),
-- not here: an upgrade starts serving at once, and reads take the plays until it is done.
INSERT INTO "jobs" ("kind", "payload", "key", "priority")
  SELECT DISTINCT 'journey.aggregate', jsonb_build_object('userId', "user_id"), "user_id", 3
  FROM "listen_days";
