CREATE TABLE "journey_stats_cache" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	"version" bigint NOT NULL,
	"stats" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "journey_stats_cache_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
CREATE TABLE "listen_versions" (
	"user_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"changed_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "journey_stats_cache" ADD CONSTRAINT "journey_stats_cache_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_versions" ADD CONSTRAINT "listen_versions_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Written by hand (drizzle-kit does not model triggers): every statement that adds, changes or
-- removes plays raises their owners' listen version once, whoever runs it (import, scrobble,
-- undo), so cached journey stats never outlive the plays they were computed from. People being
-- deleted (the cascade from "user") are skipped.
CREATE FUNCTION "listens_bump_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "listen_versions" ("user_id", "version", "changed_at")
      SELECT DISTINCT o."user_id", 1, now() FROM old_rows o
      WHERE EXISTS (SELECT 1 FROM "user" u WHERE u."id" = o."user_id")
      ON CONFLICT ("user_id") DO UPDATE
        SET "version" = "listen_versions"."version" + 1, "changed_at" = now();
  ELSE
    INSERT INTO "listen_versions" ("user_id", "version", "changed_at")
      SELECT DISTINCT n."user_id", 1, now() FROM new_rows n
      ON CONFLICT ("user_id") DO UPDATE
        SET "version" = "listen_versions"."version" + 1, "changed_at" = now();
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "listens_changed_insert" AFTER INSERT ON "listens"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "listens_bump_version"();--> statement-breakpoint
CREATE TRIGGER "listens_changed_update" AFTER UPDATE ON "listens"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "listens_bump_version"();--> statement-breakpoint
CREATE TRIGGER "listens_changed_delete" AFTER DELETE ON "listens"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "listens_bump_version"();
