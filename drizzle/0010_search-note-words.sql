-- Measured: a query that was the OR of a "simple" and an "english" tsquery got "-word" wrong.
-- A note's words were only stored stemmed, so the simple half found no "faded" to exclude and let
-- the post through. Now the query uses one configuration: "english" (stemmed), or "simple" when
-- English leaves nothing (only stop words: "The The", "the who"). The vector has, by weight:
-- A the music's names stemmed, B the tags as written (tag prefix search), C the note stemmed,
-- D the names as written (for stop-word queries).
CREATE OR REPLACE FUNCTION soundtrail_post_vector(title text, artist text, album text, note text)
  RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT setweight(to_tsvector('english'::regconfig, public.soundtrail_fold(coalesce(title, '') || ' ' || coalesce(artist, '') || ' ' || coalesce(album, ''))), 'A')
      || setweight(to_tsvector('simple'::regconfig, public.soundtrail_fold(array_to_string(public.soundtrail_note_tags(coalesce(note, '')), ' '))), 'B')
      || setweight(to_tsvector('english'::regconfig, public.soundtrail_fold(coalesce(note, ''))), 'C')
      || setweight(to_tsvector('simple'::regconfig, public.soundtrail_fold(coalesce(title, '') || ' ' || coalesce(artist, '') || ' ' || coalesce(album, ''))), 'D')
  $$;
--> statement-breakpoint
-- A stored generated column keeps what the old function computed: compute it again.
ALTER TABLE "posts" DROP COLUMN "search_vector";
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "search_vector" tsvector
  GENERATED ALWAYS AS (soundtrail_post_vector("title", "artist", "album", "note")) STORED;
--> statement-breakpoint
CREATE INDEX "posts_search_idx" ON "posts" USING gin ("search_vector");
