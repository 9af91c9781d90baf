-- Written by hand around drizzle-kit's statements (ADR 025). The journey's stats come from each
-- person's plays held in memory (app/features/journey/play-index.server.ts), not from rollups:
-- the per-key rollups of 0026 go, with their functions, and `listen_days` keeps only each day's
-- number of plays and a revision that every statement touching the day raises, so each instance
-- reloads exactly the days that changed. Functions first: their bodies do not depend on the
-- tables they read.
DROP FUNCTION "journey_top_keys"(text, text, date, date, date, date, text[], integer, integer, integer);--> statement-breakpoint
DROP FUNCTION "journey_discoveries"(text, date, date, date, date, text[], integer);--> statement-breakpoint
DROP FUNCTION "journey_artist_count"(text, date, date, date, date, text[]);--> statement-breakpoint
DROP FUNCTION "journey_day_stats"(text, date, date, text, date, text[]);--> statement-breakpoint
DROP FUNCTION "listens_rollup_units"("listens"[], "listens"[]);--> statement-breakpoint
DROP FUNCTION "listens_rollup_deltas"("listens"[], "listens"[]);--> statement-breakpoint
DROP TABLE "listen_artists" CASCADE;--> statement-breakpoint
DROP TABLE "listen_rollup_names" CASCADE;--> statement-breakpoint
DROP TABLE "listen_rollups" CASCADE;--> statement-breakpoint
-- Only the hidden-artist reads used it (they read the play index now); it cost a third of the
-- time of every play written.
DROP INDEX "listens_user_artist_idx";--> statement-breakpoint
ALTER TABLE "listen_days" ADD COLUMN "rev" bigint DEFAULT 0 NOT NULL, DROP COLUMN "known_ms", DROP COLUMN "estimated", DROP COLUMN "h0", DROP COLUMN "h1", DROP COLUMN "h2", DROP COLUMN "h3", DROP COLUMN "h4", DROP COLUMN "h5", DROP COLUMN "h6", DROP COLUMN "h7", DROP COLUMN "h8", DROP COLUMN "h9", DROP COLUMN "h10", DROP COLUMN "h11", DROP COLUMN "h12", DROP COLUMN "h13", DROP COLUMN "h14", DROP COLUMN "h15", DROP COLUMN "h16", DROP COLUMN "h17", DROP COLUMN "h18", DROP COLUMN "h19", DROP COLUMN "h20", DROP COLUMN "h21", DROP COLUMN "h22", DROP COLUMN "h23";--> statement-breakpoint
CREATE SEQUENCE "listen_day_revs";--> statement-breakpoint
UPDATE "listen_days" SET "rev" = nextval('listen_day_revs');--> statement-breakpoint
-- A set of plays, each counted `sign` times (1 added, -1 removed), added to their days in one
-- grouped upsert. Every day it touches gets a new revision, even when its count comes out the
-- same (a play renamed in place), so the play index reloads it.
CREATE FUNCTION "listen_days_add"(p_plays "listens"[], p_sign integer)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO "listen_days" AS t ("user_id", "day", "plays", "rev")
  SELECT p.user_id, (p.listened_at AT TIME ZONE 'UTC')::date, (p_sign * count(*))::int,
    nextval('listen_day_revs')
  FROM unnest(p_plays) p GROUP BY 1, 2
  ON CONFLICT ("user_id", "day") DO UPDATE SET
    "plays" = t."plays" + excluded."plays", "rev" = excluded."rev"
$$;--> statement-breakpoint
-- What the update and delete triggers call (0026's name kept): removed plays taken out, added
-- ones put in, then days left without plays removed.
CREATE OR REPLACE FUNCTION "listens_rollups_apply"(p_removed "listens"[], p_added "listens"[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_removed) > 0 THEN
    PERFORM listen_days_add(p_removed, -1);
  END IF;
  IF cardinality(p_added) > 0 THEN
    PERFORM listen_days_add(p_added, 1);
  END IF;
  IF cardinality(p_removed) > 0 THEN
    DELETE FROM "listen_days" t USING (SELECT DISTINCT r.user_id, (r.listened_at AT TIME ZONE 'UTC')::date AS day FROM unnest(p_removed) r) k
    WHERE t."user_id" = k.user_id AND t."day" = k.day AND t."plays" = 0;
  END IF;
END $$;--> statement-breakpoint
-- An insert (an import's batch, a scrobble): straight from the transition table, without building
-- an array of its rows (an import's batch of 20,000 plays: a few milliseconds).
CREATE OR REPLACE FUNCTION "listens_rollups_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listen_days" AS t ("user_id", "day", "plays", "rev")
  SELECT n.user_id, (n.listened_at AT TIME ZONE 'UTC')::date, count(*)::int, nextval('listen_day_revs')
  FROM new_rows n GROUP BY 1, 2
  ON CONFLICT ("user_id", "day") DO UPDATE SET
    "plays" = t."plays" + excluded."plays", "rev" = excluded."rev";
  RETURN NULL;
END $$;--> statement-breakpoint
-- The plays of people still there are taken out; the days of people being deleted go whole.
CREATE OR REPLACE FUNCTION "listens_rollups_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_gone text[] := array(SELECT DISTINCT o.user_id FROM old_rows o
    WHERE NOT EXISTS (SELECT 1 FROM "user" u WHERE u."id" = o.user_id));
BEGIN
  PERFORM listens_rollups_apply(array(SELECT o::"listens" FROM old_rows o WHERE o.user_id <> ALL (v_gone)), '{}'::"listens"[]);
  IF cardinality(v_gone) > 0 THEN
    DELETE FROM "listen_days" WHERE "user_id" = ANY (v_gone);
  END IF;
  RETURN NULL;
END $$;
