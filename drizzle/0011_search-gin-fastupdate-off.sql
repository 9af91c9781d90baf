-- Search (issue 12): no pending lists on the GIN indexes. With fastupdate (the default) new
-- entries wait in an unsorted pending list that every search scans in full until VACUUM merges
-- it. PGlite runs no autovacuum, so on the embedded database that list stays at its 4 MB limit
-- and a selective post search took ~44 ms instead of ~0.3 ms for the index scan (bench/
-- search-query). Writes now update the index directly (a post or a profile is written far less
-- often than searched); what is pending today is merged once, here.
ALTER INDEX "posts_search_idx" SET (fastupdate = off);
--> statement-breakpoint
ALTER INDEX "posts_tags_idx" SET (fastupdate = off);
--> statement-breakpoint
ALTER INDEX "posts_artist_key_trgm_idx" SET (fastupdate = off);
--> statement-breakpoint
ALTER INDEX "posts_album_key_trgm_idx" SET (fastupdate = off);
--> statement-breakpoint
ALTER INDEX "posts_title_key_trgm_idx" SET (fastupdate = off);
--> statement-breakpoint
ALTER INDEX "profiles_name_key_trgm_idx" SET (fastupdate = off);
--> statement-breakpoint
SELECT gin_clean_pending_list(index_name::regclass)
FROM unnest(array['posts_search_idx', 'posts_tags_idx', 'posts_artist_key_trgm_idx',
  'posts_album_key_trgm_idx', 'posts_title_key_trgm_idx', 'profiles_name_key_trgm_idx']) AS index_name;
