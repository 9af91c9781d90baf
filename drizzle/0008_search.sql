-- Search (issue 12): trigram similarity and accent folding for names, full text for posts, tags.
-- Written by hand (drizzle-kit generate --custom): the columns and functions below are read
-- through SQL in app/features/search, so the Drizzle schema does not declare them.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS unaccent;
--> statement-breakpoint
-- unaccent() is only STABLE (it looks its dictionary up by name), so an index or a generated
-- column cannot use it directly. This wrapper names the dictionary and its schema explicitly,
-- which makes the result depend on the argument alone. Slashes, dots and the like become spaces
-- so "Fishes/Arpeggi" is two words to the text-search parser, not one file path.
CREATE OR REPLACE FUNCTION soundtrail_fold(value text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, translate(value, '/\._:@+&', '        '))) $$;
--> statement-breakpoint
-- The #tags of a note, lower-cased and de-duplicated. Mirrors tokenizeNote (app/features/posts/
-- note.ts): a tag follows no word character, runs to the next space or punctuation, and is not
-- digits only; emoji are not tag characters.
CREATE OR REPLACE FUNCTION soundtrail_note_tags(note text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$
    SELECT coalesce(array_agg(DISTINCT lower(m[1])), '{}'::text[])
    FROM regexp_matches(
      note,
      '(?<![[:alnum:]_&#/])#([^\s!-/:-@[-^`{-~\u00a0-\u00bf\u2000-\u206f\u2190-\u2bff\u3000-\u303f\ufe00-\ufe0f\U0001F000-\U0001FAFF]{1,50})',
      'g'
    ) AS m
    WHERE m[1] ~ '[^0-9_]'
  $$;
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "tags" text[] GENERATED ALWAYS AS (soundtrail_note_tags("note")) STORED;
--> statement-breakpoint
-- A: the music's names as written (language "simple": no stemming, no stop words, so "The The"
-- and "Who" stay findable); B: the tags; C: everything again through the English stemmer, so
-- "running" in a note matches a search for "run". A function because array_to_string is only
-- STABLE in general (element output functions); for text[] it depends on its argument alone.
CREATE OR REPLACE FUNCTION soundtrail_post_vector(title text, artist text, album text, note text)
  RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT setweight(to_tsvector('simple'::regconfig, public.soundtrail_fold(coalesce(title, '') || ' ' || coalesce(artist, '') || ' ' || coalesce(album, ''))), 'A')
      || setweight(to_tsvector('simple'::regconfig, public.soundtrail_fold(array_to_string(public.soundtrail_note_tags(coalesce(note, '')), ' '))), 'B')
      || setweight(to_tsvector('english'::regconfig, public.soundtrail_fold(coalesce(title, '') || ' ' || coalesce(artist, '') || ' ' || coalesce(album, '') || ' ' || coalesce(note, ''))), 'C')
  $$;
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "search_vector" tsvector
  GENERATED ALWAYS AS (soundtrail_post_vector("title", "artist", "album", "note")) STORED;
--> statement-breakpoint
CREATE INDEX "posts_search_idx" ON "posts" USING gin ("search_vector");
--> statement-breakpoint
CREATE INDEX "posts_tags_idx" ON "posts" USING gin ("tags");
--> statement-breakpoint
CREATE INDEX "posts_artist_trgm_idx" ON "posts" USING gin (soundtrail_fold("artist") gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "posts_album_trgm_idx" ON "posts" USING gin (soundtrail_fold("album") gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "posts_title_trgm_idx" ON "posts" USING gin (soundtrail_fold("title") gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "profiles_search_trgm_idx" ON "profiles" USING gin (soundtrail_fold("username" || ' ' || coalesce("display_name", '')) gin_trgm_ops);
