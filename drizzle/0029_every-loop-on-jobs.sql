-- The background loops run on the job system (core/jobs): their work items become jobs.
INSERT INTO "jobs" ("kind", "payload", "key", "priority", "progress")
  SELECT 'feed.fanout', jsonb_build_object('postId', "post_id"), "post_id"::text, 1,
    CASE WHEN "after_follower" IS NULL THEN NULL
      ELSE jsonb_build_object('afterFollower', "after_follower") END
  FROM "fanout_jobs";--> statement-breakpoint
DROP TABLE "fanout_jobs" CASCADE;--> statement-breakpoint
INSERT INTO "jobs" ("kind", "payload", "key", "priority", "max_attempts")
  SELECT 'unfurl.link', jsonb_build_object('url', "url"), "url", 6, 3
  FROM "link_unfurls" WHERE "status" = 'pending';--> statement-breakpoint
ALTER TABLE "link_unfurls" DROP COLUMN "locked_until";--> statement-breakpoint
INSERT INTO "jobs" ("kind", "payload", "key", "priority", "max_attempts")
  SELECT 'journey.import', jsonb_build_object('importId', "id"), "id"::text, 8, 5
  FROM "listen_imports" WHERE "status" = 'importing';--> statement-breakpoint
-- Staged plays survive a crash now, so an import cut off mid-copy resumes on PGlite too
-- (0024 made the table unlogged for speed; a crash then emptied it).
ALTER TABLE "listen_import_rows" SET LOGGED;
