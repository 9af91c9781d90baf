CREATE TABLE "data_export_chunks" (
	"export_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"bytes" "bytea" NOT NULL,
	CONSTRAINT "data_export_chunks_export_id_seq_pk" PRIMARY KEY("export_id","seq")
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"key" text,
	"priority" smallint DEFAULT 5 NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"run_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 8 NOT NULL,
	"lease_token" uuid,
	"locked_by" text,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"progress" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"runs" integer DEFAULT 0 NOT NULL,
	"run_ms" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "data_exports" ALTER COLUMN "byte_size" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "data_export_chunks" ADD CONSTRAINT "data_export_chunks_export_id_data_exports_id_fk" FOREIGN KEY ("export_id") REFERENCES "public"."data_exports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("priority","run_at","id") WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX "jobs_running_idx" ON "jobs" USING btree ("locked_until") WHERE status = 'running';--> statement-breakpoint
CREATE INDEX "jobs_kind_status_idx" ON "jobs" USING btree ("kind","status","run_at");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_queued_key_idx" ON "jobs" USING btree ("kind","key") WHERE status = 'queued' and key is not null;--> statement-breakpoint
-- Archives made before: their bytes become their one piece; one still being prepared becomes a job.
INSERT INTO "data_export_chunks" ("export_id", "seq", "bytes")
  SELECT "id", 0, "bytes" FROM "data_exports" WHERE "bytes" IS NOT NULL;--> statement-breakpoint
INSERT INTO "jobs" ("kind", "payload", "key", "priority", "max_attempts")
  SELECT 'settings.data-export', jsonb_build_object('exportId', "id"), "id"::text, 8, 3
  FROM "data_exports" WHERE "status" = 'running';--> statement-breakpoint
ALTER TABLE "data_exports" DROP COLUMN "bytes";