-- Search (issue 12), measured: folding names at query time (unaccent per row) made a music
-- search over 200k posts take seconds. The folded names are stored once per row instead, and
-- the trigram indexes move onto those columns.
ALTER TABLE "posts" ADD COLUMN "artist_key" text GENERATED ALWAYS AS (soundtrail_fold("artist")) STORED;
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "album_key" text GENERATED ALWAYS AS (soundtrail_fold("album")) STORED;
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "title_key" text GENERATED ALWAYS AS (soundtrail_fold("title")) STORED;
--> statement-breakpoint
DROP INDEX IF EXISTS "posts_artist_trgm_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "posts_album_trgm_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "posts_title_trgm_idx";
--> statement-breakpoint
CREATE INDEX "posts_artist_key_trgm_idx" ON "posts" USING gin ("artist_key" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "posts_album_key_trgm_idx" ON "posts" USING gin ("album_key" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "posts_title_key_trgm_idx" ON "posts" USING gin ("title_key" gin_trgm_ops);
--> statement-breakpoint
-- Opening an artist, album or track lists its posts newest first.
CREATE INDEX "posts_artist_key_created_idx" ON "posts" ("artist_key", "created_at" DESC, "id" DESC);
--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "username_key" text GENERATED ALWAYS AS (soundtrail_fold("username")) STORED;
--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "display_name_key" text GENERATED ALWAYS AS (soundtrail_fold(coalesce("display_name", ''))) STORED;
--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "name_key" text GENERATED ALWAYS AS (soundtrail_fold("username" || ' ' || coalesce("display_name", ''))) STORED;
--> statement-breakpoint
DROP INDEX IF EXISTS "profiles_search_trgm_idx";
--> statement-breakpoint
CREATE INDEX "profiles_name_key_trgm_idx" ON "profiles" USING gin ("name_key" gin_trgm_ops);
