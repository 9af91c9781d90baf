CREATE TABLE "listen_artists" (
	"user_id" text NOT NULL,
	"artist_key" text NOT NULL,
	"first_at" timestamp (0) with time zone NOT NULL,
	"last_at" timestamp (0) with time zone NOT NULL,
	CONSTRAINT "listen_artists_user_id_artist_key_pk" PRIMARY KEY("user_id","artist_key")
);
--> statement-breakpoint
CREATE TABLE "listen_days" (
	"user_id" text NOT NULL,
	"day" date NOT NULL,
	"plays" integer NOT NULL,
	"known_ms" bigint NOT NULL,
	"estimated" integer NOT NULL,
	"h0" integer DEFAULT 0 NOT NULL,
	"h1" integer DEFAULT 0 NOT NULL,
	"h2" integer DEFAULT 0 NOT NULL,
	"h3" integer DEFAULT 0 NOT NULL,
	"h4" integer DEFAULT 0 NOT NULL,
	"h5" integer DEFAULT 0 NOT NULL,
	"h6" integer DEFAULT 0 NOT NULL,
	"h7" integer DEFAULT 0 NOT NULL,
	"h8" integer DEFAULT 0 NOT NULL,
	"h9" integer DEFAULT 0 NOT NULL,
	"h10" integer DEFAULT 0 NOT NULL,
	"h11" integer DEFAULT 0 NOT NULL,
	"h12" integer DEFAULT 0 NOT NULL,
	"h13" integer DEFAULT 0 NOT NULL,
	"h14" integer DEFAULT 0 NOT NULL,
	"h15" integer DEFAULT 0 NOT NULL,
	"h16" integer DEFAULT 0 NOT NULL,
	"h17" integer DEFAULT 0 NOT NULL,
	"h18" integer DEFAULT 0 NOT NULL,
	"h19" integer DEFAULT 0 NOT NULL,
	"h20" integer DEFAULT 0 NOT NULL,
	"h21" integer DEFAULT 0 NOT NULL,
	"h22" integer DEFAULT 0 NOT NULL,
	"h23" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "listen_days_user_id_day_pk" PRIMARY KEY("user_id","day")
);
--> statement-breakpoint
CREATE TABLE "listen_rollup_names" (
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"artist_key" text NOT NULL,
	"item_key" text NOT NULL,
	"span" text NOT NULL,
	"unit" date NOT NULL,
	"name" text NOT NULL,
	"artist_name" text NOT NULL,
	"plays" integer NOT NULL,
	CONSTRAINT "listen_rollup_names_pk" PRIMARY KEY("user_id","kind","artist_key","item_key","span","unit","name","artist_name")
);
--> statement-breakpoint
CREATE TABLE "listen_rollups" (
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"span" text NOT NULL,
	"unit" date NOT NULL,
	"artist_key" text NOT NULL,
	"item_key" text NOT NULL,
	"plays" integer NOT NULL,
	CONSTRAINT "listen_rollups_pk" PRIMARY KEY("user_id","kind","span","unit","artist_key","item_key")
);
--> statement-breakpoint
CREATE INDEX "listen_artists_user_first_idx" ON "listen_artists" USING btree ("user_id","first_at");--> statement-breakpoint
CREATE INDEX "listen_artists_user_last_idx" ON "listen_artists" USING btree ("user_id","last_at");--> statement-breakpoint
CREATE INDEX "listen_rollups_top_idx" ON "listen_rollups" USING btree ("user_id","kind","span","unit","plays" DESC NULLS LAST);--> statement-breakpoint
-- Written by hand (drizzle-kit does not model triggers): the journey's rollups follow every
-- statement that adds, changes or removes plays, whoever runs it. Statement-level triggers with
-- transition tables hand the statement's rows to listens_rollups_apply, which aggregates them
-- once (one grouped upsert per rollup table), so an import's batch costs a few grouped
-- statements, not a trigger per play. They are enabled ALWAYS: the importer's batches run with
-- session_replication_role = replica, which skips ordinary triggers. People being deleted (the
-- cascade from "user") lose their rollups.
--
-- A set of plays as signed deltas per (person, UTC day and hour, keys, names as written): the
-- removed plays count -1 each, the added ones +1.
CREATE FUNCTION "listens_rollup_deltas"(p_removed "listens"[], p_added "listens"[])
RETURNS TABLE (user_id text, day date, hour integer, artist_key text, release_key text,
  track_key text, artist_name text, release_name text, track_name text, n integer,
  known_ms bigint, est integer)
LANGUAGE sql IMMUTABLE AS $$
  SELECT d.user_id, (d.listened_at AT TIME ZONE 'UTC')::date,
    extract(hour FROM d.listened_at AT TIME ZONE 'UTC')::int,
    d.artist_key, d.release_key, d.track_key, d.artist_name, d.release_name, d.track_name,
    sum(d.sign)::int, sum(d.sign * d.duration_ms::bigint),
    (sum(d.sign) FILTER (WHERE d.duration_ms IS NULL))::int
  FROM (SELECT r.*, -1 AS sign FROM unnest(p_removed) r
    UNION ALL SELECT a.*, 1 AS sign FROM unnest(p_added) a) d
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
$$;--> statement-breakpoint
-- The same deltas as rollup rows: per kind (artist, release, track), span (day, month, year) and
-- unit, with the names as written; keys whose plays did not change are left out.
CREATE FUNCTION "listens_rollup_units"(p_removed "listens"[], p_added "listens"[])
RETURNS TABLE (user_id text, kind text, span text, unit date, artist_key text, item_key text,
  name text, artist_name text, n integer)
LANGUAGE sql IMMUTABLE AS $$
  SELECT g.user_id, k.kind, s.span,
    CASE s.span WHEN 'd' THEN g.day WHEN 'm' THEN date_trunc('month', g.day::timestamp)::date
      ELSE date_trunc('year', g.day::timestamp)::date END,
    g.artist_key,
    CASE k.kind WHEN 'a' THEN '' WHEN 'r' THEN g.release_key ELSE g.track_key END,
    CASE k.kind WHEN 'a' THEN g.artist_name WHEN 'r' THEN coalesce(g.release_name, '') ELSE g.track_name END,
    CASE k.kind WHEN 'a' THEN '' ELSE g.artist_name END,
    sum(g.n)::int
  FROM listens_rollup_deltas(p_removed, p_added) g
    CROSS JOIN (VALUES ('a'), ('r'), ('t')) AS k(kind) CROSS JOIN (VALUES ('d'), ('m'), ('y')) AS s(span)
  WHERE k.kind <> 'r' OR g.release_key IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  HAVING sum(g.n) <> 0
$$;--> statement-breakpoint
-- Applies removed and added plays to every rollup table. Rows that reach zero plays are removed,
-- and the first and last plays of the artists of removed plays are read again from the plays.
CREATE FUNCTION "listens_rollups_apply"(p_removed "listens"[], p_added "listens"[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH g AS (SELECT * FROM listens_rollup_deltas(p_removed, p_added)),
  x AS (SELECT * FROM listens_rollup_units(p_removed, p_added)),
  days AS (
    INSERT INTO "listen_days" AS t ("user_id", "day", "plays", "known_ms", "estimated", "h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9", "h10", "h11", "h12", "h13", "h14", "h15", "h16", "h17", "h18", "h19", "h20", "h21", "h22", "h23")
    SELECT g.user_id, g.day, sum(g.n)::int, coalesce(sum(g.known_ms), 0)::bigint,
      coalesce(sum(g.est), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 0), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 1), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 2), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 3), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 4), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 5), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 6), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 7), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 8), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 9), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 10), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 11), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 12), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 13), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 14), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 15), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 16), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 17), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 18), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 19), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 20), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 21), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 22), 0)::int,
      coalesce(sum(g.n) FILTER (WHERE g.hour = 23), 0)::int
    FROM g GROUP BY g.user_id, g.day
    ON CONFLICT ("user_id", "day") DO UPDATE SET
      "plays" = t."plays" + excluded."plays",
      "known_ms" = t."known_ms" + excluded."known_ms",
      "estimated" = t."estimated" + excluded."estimated",
      "h0" = t."h0" + excluded."h0",
      "h1" = t."h1" + excluded."h1",
      "h2" = t."h2" + excluded."h2",
      "h3" = t."h3" + excluded."h3",
      "h4" = t."h4" + excluded."h4",
      "h5" = t."h5" + excluded."h5",
      "h6" = t."h6" + excluded."h6",
      "h7" = t."h7" + excluded."h7",
      "h8" = t."h8" + excluded."h8",
      "h9" = t."h9" + excluded."h9",
      "h10" = t."h10" + excluded."h10",
      "h11" = t."h11" + excluded."h11",
      "h12" = t."h12" + excluded."h12",
      "h13" = t."h13" + excluded."h13",
      "h14" = t."h14" + excluded."h14",
      "h15" = t."h15" + excluded."h15",
      "h16" = t."h16" + excluded."h16",
      "h17" = t."h17" + excluded."h17",
      "h18" = t."h18" + excluded."h18",
      "h19" = t."h19" + excluded."h19",
      "h20" = t."h20" + excluded."h20",
      "h21" = t."h21" + excluded."h21",
      "h22" = t."h22" + excluded."h22",
      "h23" = t."h23" + excluded."h23"
  ),
  counts AS (
    INSERT INTO "listen_rollups" AS t ("user_id", "kind", "span", "unit", "artist_key", "item_key", "plays")
    SELECT x.user_id, x.kind, x.span, x.unit, x.artist_key, x.item_key, sum(x.n)::int
    FROM x GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(x.n) <> 0
    ON CONFLICT ("user_id", "kind", "span", "unit", "artist_key", "item_key") DO UPDATE SET
      "plays" = t."plays" + excluded."plays"
  )
  INSERT INTO "listen_rollup_names" AS t ("user_id", "kind", "artist_key", "item_key", "span", "unit", "name", "artist_name", "plays")
  SELECT x.user_id, x.kind, x.artist_key, x.item_key, x.span, x.unit, x.name, x.artist_name, x.n FROM x
  ON CONFLICT ("user_id", "kind", "artist_key", "item_key", "span", "unit", "name", "artist_name") DO UPDATE SET
    "plays" = t."plays" + excluded."plays";
  IF cardinality(p_removed) = 0 THEN
    INSERT INTO "listen_artists" AS t ("user_id", "artist_key", "first_at", "last_at")
      SELECT a.user_id, a.artist_key, min(a.listened_at), max(a.listened_at) FROM unnest(p_added) a GROUP BY 1, 2
      ON CONFLICT ("user_id", "artist_key") DO UPDATE SET
        "first_at" = least(t."first_at", excluded."first_at"),
        "last_at" = greatest(t."last_at", excluded."last_at")
      WHERE excluded."first_at" < t."first_at" OR excluded."last_at" > t."last_at";
    RETURN;
  END IF;
  DELETE FROM "listen_days" t USING (SELECT DISTINCT g.user_id, g.day FROM listens_rollup_deltas(p_removed, p_added) g) k
  WHERE t."user_id" = k.user_id AND t."day" = k.day AND t."plays" = 0;
  DELETE FROM "listen_rollups" t USING (SELECT DISTINCT x.user_id, x.kind, x.span, x.unit, x.artist_key, x.item_key FROM listens_rollup_units(p_removed, p_added) x) k
  WHERE t."user_id" = k.user_id AND t."kind" = k.kind AND t."span" = k.span AND t."unit" = k.unit
    AND t."artist_key" = k.artist_key AND t."item_key" = k.item_key AND t."plays" = 0;
  DELETE FROM "listen_rollup_names" t USING listens_rollup_units(p_removed, p_added) k
  WHERE t."user_id" = k.user_id AND t."kind" = k.kind AND t."artist_key" = k.artist_key
    AND t."item_key" = k.item_key AND t."span" = k.span AND t."unit" = k.unit AND t."name" = k.name
    AND t."artist_name" = k.artist_name AND t."plays" = 0;
  DELETE FROM "listen_artists" f USING (SELECT r.user_id, r.artist_key FROM unnest(p_removed) r
      UNION SELECT a.user_id, a.artist_key FROM unnest(p_added) a) k
    WHERE f."user_id" = k.user_id AND f."artist_key" = k.artist_key;
  INSERT INTO "listen_artists" ("user_id", "artist_key", "first_at", "last_at")
    SELECT k.user_id, k.artist_key, m.first_at, m.last_at FROM (SELECT r.user_id, r.artist_key FROM unnest(p_removed) r
      UNION SELECT a.user_id, a.artist_key FROM unnest(p_added) a) k
    CROSS JOIN LATERAL (SELECT min(l."listened_at") AS first_at, max(l."listened_at") AS last_at
      FROM "listens" l WHERE l."user_id" = k.user_id AND l."artist_key" = k.artist_key) m
    WHERE m.first_at IS NOT NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "listens_rollups_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM listens_rollups_apply('{}'::"listens"[], array(SELECT n::"listens" FROM new_rows n));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "listens_rollups_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM listens_rollups_apply(array(SELECT o::"listens" FROM old_rows o), array(SELECT n::"listens" FROM new_rows n));
  RETURN NULL;
END $$;--> statement-breakpoint
-- The plays of people still there are taken out; the rollups of people being deleted go whole.
CREATE FUNCTION "listens_rollups_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_gone text[] := array(SELECT DISTINCT o.user_id FROM old_rows o
    WHERE NOT EXISTS (SELECT 1 FROM "user" u WHERE u."id" = o.user_id));
BEGIN
  PERFORM listens_rollups_apply(array(SELECT o::"listens" FROM old_rows o WHERE o.user_id <> ALL (v_gone)), '{}'::"listens"[]);
  IF cardinality(v_gone) > 0 THEN
    DELETE FROM "listen_days" WHERE "user_id" = ANY (v_gone);
    DELETE FROM "listen_artists" WHERE "user_id" = ANY (v_gone);
    DELETE FROM "listen_rollups" WHERE "user_id" = ANY (v_gone);
    DELETE FROM "listen_rollup_names" WHERE "user_id" = ANY (v_gone);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "listens_rollups_insert" AFTER INSERT ON "listens"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "listens_rollups_insert"();--> statement-breakpoint
CREATE TRIGGER "listens_rollups_update" AFTER UPDATE ON "listens"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "listens_rollups_update"();--> statement-breakpoint
CREATE TRIGGER "listens_rollups_delete" AFTER DELETE ON "listens"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "listens_rollups_delete"();--> statement-breakpoint
ALTER TABLE "listens" ENABLE ALWAYS TRIGGER "listens_rollups_insert";--> statement-breakpoint
ALTER TABLE "listens" ENABLE ALWAYS TRIGGER "listens_rollups_update";--> statement-breakpoint
ALTER TABLE "listens" ENABLE ALWAYS TRIGGER "listens_rollups_delete";--> statement-breakpoint
-- The plays already there, a person's month at a time (bounded memory).
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT l."user_id", date_trunc('month', l."listened_at" AT TIME ZONE 'UTC') AS month
    FROM "listens" l LOOP
    PERFORM listens_rollups_apply('{}'::"listens"[], array(SELECT l FROM "listens" l WHERE l."user_id" = r.user_id
      AND l."listened_at" >= r.month AT TIME ZONE 'UTC'
      AND l."listened_at" < (r.month + interval '1 month') AT TIME ZONE 'UTC'));
  END LOOP;
END $$;
--> statement-breakpoint
-- The journey's reads of the rollups (app/features/journey/rollups.server.ts calls them), as
-- PL/pgSQL functions because PL/pgSQL keeps its statements' plans for the connection: planning
-- these statements cost more than running them on PGlite (see 0022). What each computes is
-- described where it is called; rollups.test.ts compares their results with the plays'.
CREATE FUNCTION "journey_top_keys"(
  p_user text, p_kind text, p_start date, p_months_from date, p_months_to date, p_end date,
  p_hidden text[], p_limit integer, p_depth integer, p_max_depth integer
) RETURNS jsonb LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_depth integer := p_depth;
  v_result jsonb;
  v_count integer;
  v_last integer;
  v_bound bigint;
  v_years_from date;
  v_years_to date;
BEGIN
  -- An edge of days next to the whole months is read as its month when the rest of that month
  -- has no plays (all time starts on the first play's day; a window ending today has nothing
  -- after it): the same plays in one unit instead of up to 30.
  IF p_months_from < p_months_to THEN
    IF p_start < p_months_from AND NOT EXISTS (SELECT 1 FROM listen_days
        WHERE user_id = p_user AND day >= (p_months_from - interval '1 month')::date AND day < p_start) THEN
      p_months_from := (p_months_from - interval '1 month')::date;
      p_start := p_months_from;
    END IF;
    IF p_months_to < p_end AND NOT EXISTS (SELECT 1 FROM listen_days
        WHERE user_id = p_user AND day >= p_end AND day < (p_months_to + interval '1 month')::date) THEN
      p_months_to := (p_months_to + interval '1 month')::date;
      p_end := p_months_to;
    END IF;
  END IF;
  -- Whole years inside the whole months, and the months next to them read as their year when
  -- the rest of that year has no plays (all time, or a window ending today).
  v_years_from := date_trunc('year', (p_months_from - 1)::timestamp)::date;
  IF v_years_from < p_months_from THEN
    v_years_from := (v_years_from + interval '1 year')::date;
  END IF;
  v_years_to := date_trunc('year', p_months_to::timestamp)::date;
  IF v_years_from >= v_years_to THEN
    v_years_from := p_months_to;
    v_years_to := p_months_to;
  ELSE
    IF p_months_from < v_years_from AND p_start = p_months_from AND NOT EXISTS (SELECT 1 FROM listen_days
        WHERE user_id = p_user AND day >= (v_years_from - interval '1 year')::date AND day < p_months_from) THEN
      v_years_from := (v_years_from - interval '1 year')::date;
      p_months_from := v_years_from;
      p_start := v_years_from;
    END IF;
    IF v_years_to < p_months_to AND p_end = p_months_to AND NOT EXISTS (SELECT 1 FROM listen_days
        WHERE user_id = p_user AND day >= p_months_to AND day < (v_years_to + interval '1 year')::date) THEN
      v_years_to := (v_years_to + interval '1 year')::date;
      p_months_to := v_years_to;
      p_end := v_years_to;
    END IF;
  END IF;
  WHILE v_depth <= p_max_depth LOOP
    WITH u AS (
        SELECT 'd'::text AS span, d::date AS unit
          FROM generate_series(p_start::timestamp, (p_months_from - 1)::timestamp, interval '1 day') d
        UNION ALL
        SELECT 'm', m::date
          FROM generate_series(p_months_from::timestamp, (v_years_from - 1)::timestamp, interval '1 month') m
        UNION ALL
        SELECT 'y', y::date
          FROM generate_series(v_years_from::timestamp, (v_years_to - 1)::timestamp, interval '1 year') y
        UNION ALL
        SELECT 'm', m::date
          FROM generate_series(v_years_to::timestamp, (p_months_to - 1)::timestamp, interval '1 month') m
        UNION ALL
        SELECT 'd', d::date
          FROM generate_series(p_months_to::timestamp, (p_end - 1)::timestamp, interval '1 day') d
      ),
      top AS (
        SELECT u.span, u.unit, r.artist_key, r.item_key, r.plays FROM u CROSS JOIN LATERAL (
          SELECT r.artist_key, r.item_key, r.plays FROM listen_rollups r
          WHERE r.user_id = p_user AND r.kind = p_kind AND r.span = u.span AND r.unit = u.unit
            AND r.artist_key <> ALL (p_hidden)
          ORDER BY r.plays DESC NULLS LAST LIMIT v_depth) r
      ),
      kth AS (
        SELECT span, unit, CASE WHEN count(*) >= v_depth THEN min(plays) ELSE 0 END AS kth
        FROM top GROUP BY span, unit
      ),
      bound AS (SELECT coalesce(sum(kth), 0)::bigint AS bound FROM kth),
      seen AS (
        SELECT t.artist_key, t.item_key, sum(t.plays) AS low, sum(k.kth) AS seen_kth
        FROM top t JOIN kth k USING (span, unit) GROUP BY 1, 2
      ),
      low_cut AS (SELECT low FROM seen ORDER BY low DESC OFFSET p_limit - 1 LIMIT 1),
      picked AS (SELECT artist_key, item_key FROM seen
        WHERE low + (SELECT bound FROM bound) - seen_kth >= coalesce((SELECT low FROM low_cut), 0)),
      name_rows AS (
        SELECT c.artist_key, c.item_key, r.name, r.artist_name, r.plays FROM picked c
        CROSS JOIN LATERAL (
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'd' AND n.unit >= p_start AND n.unit < p_months_from
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'm' AND n.unit >= p_months_from AND n.unit < v_years_from
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'y' AND n.unit >= v_years_from AND n.unit < v_years_to
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'm' AND n.unit >= v_years_to AND n.unit < p_months_to
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'd' AND n.unit >= p_months_to AND n.unit < p_end
        ) r
      ),
      ranked AS (
        SELECT artist_key, item_key, sum(plays)::int AS plays FROM name_rows
        GROUP BY 1, 2 HAVING sum(plays) > 0
        ORDER BY 3 DESC, CASE WHEN p_kind = 'a' THEN artist_key ELSE artist_key || '/' || item_key END LIMIT p_limit
      ),
      ranked_rows AS (SELECT n.* FROM name_rows n JOIN ranked k USING (artist_key, item_key)),
      names AS (
        SELECT DISTINCT ON (artist_key, item_key) artist_key, item_key, name FROM (
          SELECT artist_key, item_key, name, sum(plays) AS plays FROM ranked_rows GROUP BY 1, 2, 3) x
        ORDER BY artist_key, item_key, plays DESC, name
      ),
      artist_names AS (
        SELECT DISTINCT ON (artist_key, item_key) artist_key, item_key, artist_name FROM (
          SELECT artist_key, item_key, artist_name, sum(plays) AS plays FROM ranked_rows GROUP BY 1, 2, 3) x
        ORDER BY artist_key, item_key, plays DESC, artist_name
      ),
      named AS (
        SELECT k.artist_key, k.item_key, k.plays, n.name, a.artist_name FROM ranked k
        JOIN names n USING (artist_key, item_key) JOIN artist_names a USING (artist_key, item_key)
      )
    SELECT coalesce(jsonb_agg(jsonb_build_object('artistKey', artist_key, 'itemKey', item_key,
        'plays', plays, 'name', name, 'artistName', artist_name) ORDER BY plays DESC, CASE WHEN p_kind = 'a' THEN artist_key ELSE artist_key || '/' || item_key END), '[]'::jsonb), count(*)::int, min(plays), (SELECT bound FROM bound)
    INTO v_result, v_count, v_last, v_bound FROM named;
    IF v_bound = 0 OR (v_count = p_limit AND v_last > v_bound) THEN
      RETURN v_result;
    END IF;
    v_depth := v_depth * 4;
  END LOOP;
  WITH picked AS (SELECT r.artist_key, r.item_key FROM listen_rollups r
        WHERE r.user_id = p_user AND r.kind = p_kind AND r.artist_key <> ALL (p_hidden)
          AND ((r.span = 'd' AND r.unit >= p_start AND r.unit < p_months_from)
            OR (r.span = 'm' AND r.unit >= p_months_from AND r.unit < v_years_from)
            OR (r.span = 'y' AND r.unit >= v_years_from AND r.unit < v_years_to)
            OR (r.span = 'm' AND r.unit >= v_years_to AND r.unit < p_months_to)
            OR (r.span = 'd' AND r.unit >= p_months_to AND r.unit < p_end))
        GROUP BY 1, 2 ORDER BY sum(r.plays) DESC, CASE WHEN p_kind = 'a' THEN r.artist_key ELSE r.artist_key || '/' || r.item_key END LIMIT p_limit),
      name_rows AS (
        SELECT c.artist_key, c.item_key, r.name, r.artist_name, r.plays FROM picked c
        CROSS JOIN LATERAL (
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'd' AND n.unit >= p_start AND n.unit < p_months_from
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'm' AND n.unit >= p_months_from AND n.unit < v_years_from
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'y' AND n.unit >= v_years_from AND n.unit < v_years_to
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'm' AND n.unit >= v_years_to AND n.unit < p_months_to
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'd' AND n.unit >= p_months_to AND n.unit < p_end
        ) r
      ),
      ranked AS (
        SELECT artist_key, item_key, sum(plays)::int AS plays FROM name_rows
        GROUP BY 1, 2 HAVING sum(plays) > 0
        ORDER BY 3 DESC, CASE WHEN p_kind = 'a' THEN artist_key ELSE artist_key || '/' || item_key END LIMIT p_limit
      ),
      ranked_rows AS (SELECT n.* FROM name_rows n JOIN ranked k USING (artist_key, item_key)),
      names AS (
        SELECT DISTINCT ON (artist_key, item_key) artist_key, item_key, name FROM (
          SELECT artist_key, item_key, name, sum(plays) AS plays FROM ranked_rows GROUP BY 1, 2, 3) x
        ORDER BY artist_key, item_key, plays DESC, name
      ),
      artist_names AS (
        SELECT DISTINCT ON (artist_key, item_key) artist_key, item_key, artist_name FROM (
          SELECT artist_key, item_key, artist_name, sum(plays) AS plays FROM ranked_rows GROUP BY 1, 2, 3) x
        ORDER BY artist_key, item_key, plays DESC, artist_name
      ),
      named AS (
        SELECT k.artist_key, k.item_key, k.plays, n.name, a.artist_name FROM ranked k
        JOIN names n USING (artist_key, item_key) JOIN artist_names a USING (artist_key, item_key)
      )
  SELECT coalesce(jsonb_agg(jsonb_build_object('artistKey', artist_key, 'itemKey', item_key,
        'plays', plays, 'name', name, 'artistName', artist_name) ORDER BY plays DESC, CASE WHEN p_kind = 'a' THEN artist_key ELSE artist_key || '/' || item_key END), '[]'::jsonb) INTO v_result FROM named;
  RETURN v_result;
END $$;--> statement-breakpoint
CREATE FUNCTION "journey_day_stats"(
  p_user text, p_start date, p_end date, p_bucket text, p_tomorrow date, p_hidden text[]
) RETURNS jsonb LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_result jsonb;
BEGIN
  IF cardinality(p_hidden) = 0 THEN
    -- Every play counts: the period's rows by their key range, the streak's days from the key.
    WITH live AS (
        SELECT day, plays, known_ms, estimated, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, h11, h12, h13, h14, h15, h16, h17, h18, h19, h20, h21, h22, h23 FROM listen_days
        WHERE user_id = p_user AND day >= p_start AND day < p_end
      ),
    period AS (SELECT * FROM live WHERE day >= p_start AND day < p_end),
    totals AS (
      SELECT coalesce(sum(plays), 0)::bigint AS plays, coalesce(sum(known_ms), 0)::bigint AS known_ms,
        coalesce(sum(estimated), 0)::bigint AS estimated, count(*)::int AS days
      FROM period
    ),
    buckets AS (
      SELECT coalesce(jsonb_object_agg(b, plays), '{}'::jsonb) AS buckets FROM (
        SELECT to_char(date_trunc(p_bucket, day::timestamp), 'YYYY-MM-DD') AS b, sum(plays)::bigint AS plays
        FROM period GROUP BY 1) x
    ),
    clock AS (
      SELECT coalesce(jsonb_object_agg(weekday, hours), '{}'::jsonb) AS clock FROM (
        SELECT extract(isodow FROM day)::int - 1 AS weekday,
          jsonb_build_array(sum(h0), sum(h1), sum(h2), sum(h3), sum(h4), sum(h5), sum(h6), sum(h7), sum(h8), sum(h9), sum(h10), sum(h11), sum(h12), sum(h13), sum(h14), sum(h15), sum(h16), sum(h17), sum(h18), sum(h19), sum(h20), sum(h21), sum(h22), sum(h23)) AS hours
        FROM period GROUP BY 1) x
    ),
    runs AS (
      SELECT day, sum(brk) OVER (ORDER BY day) AS run FROM (
        SELECT day, CASE WHEN day - lag(day) OVER (ORDER BY day) <= 2 THEN 0 ELSE 1 END AS brk
        FROM period) x
    ),
    longest AS (
      SELECT jsonb_build_object('from', to_char(min(day), 'YYYY-MM-DD'), 'to', to_char(max(day), 'YYYY-MM-DD'),
        'days', max(day) - min(day) + 1) AS streak
      FROM runs GROUP BY run ORDER BY max(day) - min(day) DESC, min(day) LIMIT 1
    ),
    recent AS (SELECT day, lag(day) OVER (ORDER BY day) AS prev FROM (SELECT day FROM listen_days WHERE user_id = p_user AND day < p_tomorrow) r),
    current AS (
      SELECT CASE WHEN (SELECT max(day) FROM recent) >= p_tomorrow - 3 THEN jsonb_build_object(
          'from', to_char(s.day, 'YYYY-MM-DD'),
          'to', to_char((SELECT max(day) FROM recent), 'YYYY-MM-DD'),
          'days', (SELECT max(day) FROM recent) - s.day + 1) END AS streak
      FROM (SELECT max(day) AS day FROM recent WHERE prev IS NULL OR day - prev > 2) s
    )
  SELECT jsonb_build_object('plays', t.plays, 'knownMs', t.known_ms, 'estimated', t.estimated,
      'days', t.days, 'buckets', b.buckets, 'clock', c.clock,
      'longest', (SELECT streak FROM longest), 'current', (SELECT streak FROM current))
  INTO v_result FROM totals t, buckets b, clock c;
  ELSE
    -- The hidden artists' plays, read from the plays, are taken out of each day's.
    WITH hidden AS (
      SELECT (l.listened_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS plays,
        coalesce(sum(l.duration_ms), 0)::bigint AS known_ms,
        count(*) FILTER (WHERE l.duration_ms IS NULL)::int AS estimated,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 0)::int AS h0,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 1)::int AS h1,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 2)::int AS h2,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 3)::int AS h3,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 4)::int AS h4,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 5)::int AS h5,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 6)::int AS h6,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 7)::int AS h7,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 8)::int AS h8,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 9)::int AS h9,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 10)::int AS h10,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 11)::int AS h11,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 12)::int AS h12,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 13)::int AS h13,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 14)::int AS h14,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 15)::int AS h15,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 16)::int AS h16,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 17)::int AS h17,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 18)::int AS h18,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 19)::int AS h19,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 20)::int AS h20,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 21)::int AS h21,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 22)::int AS h22,
        count(*) FILTER (WHERE extract(hour FROM l.listened_at AT TIME ZONE 'UTC') = 23)::int AS h23
      FROM listens l WHERE l.user_id = p_user AND l.artist_key = ANY (p_hidden)
      GROUP BY 1
    ),
    live AS (
      SELECT d.day, d.plays - coalesce(h.plays, 0) AS plays, d.known_ms - coalesce(h.known_ms, 0) AS known_ms,
        d.estimated - coalesce(h.estimated, 0) AS estimated, d.h0 - coalesce(h.h0, 0) AS h0, d.h1 - coalesce(h.h1, 0) AS h1, d.h2 - coalesce(h.h2, 0) AS h2, d.h3 - coalesce(h.h3, 0) AS h3, d.h4 - coalesce(h.h4, 0) AS h4, d.h5 - coalesce(h.h5, 0) AS h5, d.h6 - coalesce(h.h6, 0) AS h6, d.h7 - coalesce(h.h7, 0) AS h7, d.h8 - coalesce(h.h8, 0) AS h8, d.h9 - coalesce(h.h9, 0) AS h9, d.h10 - coalesce(h.h10, 0) AS h10, d.h11 - coalesce(h.h11, 0) AS h11, d.h12 - coalesce(h.h12, 0) AS h12, d.h13 - coalesce(h.h13, 0) AS h13, d.h14 - coalesce(h.h14, 0) AS h14, d.h15 - coalesce(h.h15, 0) AS h15, d.h16 - coalesce(h.h16, 0) AS h16, d.h17 - coalesce(h.h17, 0) AS h17, d.h18 - coalesce(h.h18, 0) AS h18, d.h19 - coalesce(h.h19, 0) AS h19, d.h20 - coalesce(h.h20, 0) AS h20, d.h21 - coalesce(h.h21, 0) AS h21, d.h22 - coalesce(h.h22, 0) AS h22, d.h23 - coalesce(h.h23, 0) AS h23
      FROM listen_days d LEFT JOIN hidden h ON h.day = d.day
      WHERE d.user_id = p_user AND d.plays > coalesce(h.plays, 0)
    ),
    period AS (SELECT * FROM live WHERE day >= p_start AND day < p_end),
    totals AS (
      SELECT coalesce(sum(plays), 0)::bigint AS plays, coalesce(sum(known_ms), 0)::bigint AS known_ms,
        coalesce(sum(estimated), 0)::bigint AS estimated, count(*)::int AS days
      FROM period
    ),
    buckets AS (
      SELECT coalesce(jsonb_object_agg(b, plays), '{}'::jsonb) AS buckets FROM (
        SELECT to_char(date_trunc(p_bucket, day::timestamp), 'YYYY-MM-DD') AS b, sum(plays)::bigint AS plays
        FROM period GROUP BY 1) x
    ),
    clock AS (
      SELECT coalesce(jsonb_object_agg(weekday, hours), '{}'::jsonb) AS clock FROM (
        SELECT extract(isodow FROM day)::int - 1 AS weekday,
          jsonb_build_array(sum(h0), sum(h1), sum(h2), sum(h3), sum(h4), sum(h5), sum(h6), sum(h7), sum(h8), sum(h9), sum(h10), sum(h11), sum(h12), sum(h13), sum(h14), sum(h15), sum(h16), sum(h17), sum(h18), sum(h19), sum(h20), sum(h21), sum(h22), sum(h23)) AS hours
        FROM period GROUP BY 1) x
    ),
    runs AS (
      SELECT day, sum(brk) OVER (ORDER BY day) AS run FROM (
        SELECT day, CASE WHEN day - lag(day) OVER (ORDER BY day) <= 2 THEN 0 ELSE 1 END AS brk
        FROM period) x
    ),
    longest AS (
      SELECT jsonb_build_object('from', to_char(min(day), 'YYYY-MM-DD'), 'to', to_char(max(day), 'YYYY-MM-DD'),
        'days', max(day) - min(day) + 1) AS streak
      FROM runs GROUP BY run ORDER BY max(day) - min(day) DESC, min(day) LIMIT 1
    ),
    recent AS (SELECT day, lag(day) OVER (ORDER BY day) AS prev FROM (SELECT day FROM live WHERE day < p_tomorrow) r),
    current AS (
      SELECT CASE WHEN (SELECT max(day) FROM recent) >= p_tomorrow - 3 THEN jsonb_build_object(
          'from', to_char(s.day, 'YYYY-MM-DD'),
          'to', to_char((SELECT max(day) FROM recent), 'YYYY-MM-DD'),
          'days', (SELECT max(day) FROM recent) - s.day + 1) END AS streak
      FROM (SELECT max(day) AS day FROM recent WHERE prev IS NULL OR day - prev > 2) s
    )
  SELECT jsonb_build_object('plays', t.plays, 'knownMs', t.known_ms, 'estimated', t.estimated,
      'days', t.days, 'buckets', b.buckets, 'clock', c.clock,
      'longest', (SELECT streak FROM longest), 'current', (SELECT streak FROM current))
  INTO v_result FROM totals t, buckets b, clock c;
  END IF;
  RETURN v_result;
END $$;--> statement-breakpoint
CREATE FUNCTION "journey_discoveries"(
  p_user text, p_start date, p_months_from date, p_months_to date, p_end date, p_hidden text[],
  p_limit integer
) RETURNS jsonb LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  p_kind text := 'a';
  v_years_from date := p_months_to;
  v_years_to date := p_months_to;
  v_count integer;
  v_artists jsonb;
BEGIN
  SELECT count(*)::int INTO v_count FROM listen_artists f
  WHERE f.user_id = p_user AND f.first_at >= p_start::timestamp AT TIME ZONE 'UTC'
    AND f.first_at < p_end::timestamp AT TIME ZONE 'UTC' AND f.artist_key <> ALL (p_hidden);
  WITH d AS (
      SELECT f.artist_key, f.first_at FROM listen_artists f
      WHERE f.user_id = p_user AND f.first_at >= p_start::timestamp AT TIME ZONE 'UTC'
        AND f.first_at < p_end::timestamp AT TIME ZONE 'UTC' AND f.artist_key <> ALL (p_hidden)
      ORDER BY f.first_at DESC LIMIT p_limit
    ),
    ties AS (
      SELECT f.artist_key, f.first_at FROM listen_artists f
      WHERE f.user_id = p_user AND f.first_at = (SELECT min(first_at) FROM d)
        AND f.artist_key <> ALL (p_hidden)
      UNION SELECT * FROM d
    ),
    picked AS (SELECT artist_key, ''::text AS item_key FROM ties),
      name_rows AS (
        SELECT c.artist_key, c.item_key, r.name, r.artist_name, r.plays FROM picked c
        CROSS JOIN LATERAL (
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'd' AND n.unit >= p_start AND n.unit < p_months_from
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'm' AND n.unit >= p_months_from AND n.unit < v_years_from
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'y' AND n.unit >= v_years_from AND n.unit < v_years_to
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'm' AND n.unit >= v_years_to AND n.unit < p_months_to
          UNION ALL
          SELECT n.name, n.artist_name, n.plays FROM listen_rollup_names n
          WHERE n.user_id = p_user AND n.kind = p_kind AND n.artist_key = c.artist_key
            AND n.item_key = c.item_key AND n.span = 'd' AND n.unit >= p_months_to AND n.unit < p_end
        ) r
      ),
      ranked AS (
        SELECT artist_key, item_key, sum(plays)::int AS plays FROM name_rows
        GROUP BY 1, 2 HAVING sum(plays) > 0
        ORDER BY 3 DESC, CASE WHEN p_kind = 'a' THEN artist_key ELSE artist_key || '/' || item_key END 
      ),
      ranked_rows AS (SELECT n.* FROM name_rows n JOIN ranked k USING (artist_key, item_key)),
      names AS (
        SELECT DISTINCT ON (artist_key, item_key) artist_key, item_key, name FROM (
          SELECT artist_key, item_key, name, sum(plays) AS plays FROM ranked_rows GROUP BY 1, 2, 3) x
        ORDER BY artist_key, item_key, plays DESC, name
      ),
      artist_names AS (
        SELECT DISTINCT ON (artist_key, item_key) artist_key, item_key, artist_name FROM (
          SELECT artist_key, item_key, artist_name, sum(plays) AS plays FROM ranked_rows GROUP BY 1, 2, 3) x
        ORDER BY artist_key, item_key, plays DESC, artist_name
      ),
      named AS (
        SELECT k.artist_key, k.item_key, k.plays, n.name, a.artist_name FROM ranked k
        JOIN names n USING (artist_key, item_key) JOIN artist_names a USING (artist_key, item_key)
      )
  SELECT coalesce(jsonb_agg(jsonb_build_object('name', x.name, 'firstPlayedOn', x.first_on)
      ORDER BY x.first_at DESC, x.name), '[]'::jsonb)
  INTO v_artists FROM (
    SELECT n.name, to_char(t.first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS first_on, t.first_at
    FROM ties t JOIN named n USING (artist_key) ORDER BY t.first_at DESC, n.name LIMIT p_limit) x;
  RETURN jsonb_build_object('count', v_count, 'artists', v_artists);
END $$;--> statement-breakpoint
CREATE FUNCTION "journey_artist_count"(
  p_user text, p_start date, p_months_from date, p_months_to date, p_end date, p_hidden text[]
) RETURNS integer LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_count integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM listen_days WHERE user_id = p_user AND day >= p_end) THEN
    -- Nothing played from the end on: an artist last played since the start was played in the period.
    SELECT count(*)::int INTO v_count FROM listen_artists f
    WHERE f.user_id = p_user AND f.last_at >= p_start::timestamp AT TIME ZONE 'UTC'
      AND f.artist_key <> ALL (p_hidden);
  ELSE
    SELECT count(DISTINCT r.artist_key)::int INTO v_count FROM listen_rollups r
    WHERE r.user_id = p_user AND r.kind = 'a' AND r.artist_key <> ALL (p_hidden)
      AND ((r.span = 'd' AND r.unit >= p_start AND r.unit < p_months_from)
        OR (r.span = 'm' AND r.unit >= p_months_from AND r.unit < p_months_to)
        OR (r.span = 'd' AND r.unit >= p_months_to AND r.unit < p_end));
  END IF;
  RETURN v_count;
END $$;
