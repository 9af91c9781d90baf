-- One page of a person's home timeline ("Following"), as listFeed returned it from one inline
-- statement (app/features/posts/post-cards.server.ts, source "timeline"): the same rows, columns
-- and order. A PL/pgSQL function because PL/pgSQL keeps its statements' plans for the connection
-- (issue 17 item 5): planning the inline statement cost 1.3-2 ms of every call on PGlite, which
-- cannot keep a prepared statement through Drizzle. force_generic_plan: planned once per
-- connection (the parameters are a person, a cursor and a page size; no value changes the best
-- plan), not five times before the plan cache decides.
-- The visibility rule is canSeePost's (app/core/visibility.server.ts) spelled out: a
-- change to that rule needs a migration replacing this function too
-- (app/features/posts/feed-page-function.test.ts compares the two on every case of the rule).
CREATE FUNCTION "feed_timeline_page"(
  "p_viewer" text,
  "p_before_at" timestamptz,
  "p_before_id" uuid,
  "p_limit" integer
) RETURNS TABLE (
  "id" uuid,
  "kind" text,
  "title" text,
  "artist" text,
  "album" text,
  "link_url" text,
  "note" text,
  "mood" text,
  "audience" text,
  "created_at" timestamptz,
  "edited_at" timestamptz,
  "author_id" text,
  "author_username" text,
  "author_display_name" text,
  "author_avatar_url" text,
  "image_id" uuid,
  "image_width" integer,
  "image_height" integer,
  "preview_status" text,
  "preview_title" text,
  "preview_artist" text,
  "preview_embed_url" text,
  "preview_art" text,
  "like_count" integer,
  "comment_count" integer,
  "viewer_has_liked" boolean,
  "viewer_follows_author" boolean
) LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
  IF p_before_at IS NULL OR p_before_id IS NULL THEN
    RETURN QUERY
    SELECT pg.id, pg.kind, pg.title, pg.artist, pg.album, pg.link_url, pg.note, pg.mood,
      pg.audience, pg.created_at, pg.edited_at, pg.author_id,
      pr.username, pr.display_name, pr.avatar_url,
      m.id, m.width, m.height,
      lu.status, lu.title, lu.artist, lu.embed_url, lu.artwork_sha256,
      (SELECT count(*)::int FROM post_likes l WHERE l.post_id = pg.id),
      (SELECT count(*)::int FROM comments c WHERE c.post_id = pg.id),
      EXISTS (SELECT 1 FROM post_likes l WHERE l.post_id = pg.id AND l.user_id = p_viewer),
      EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = p_viewer AND f.followee_id = pg.author_id)
    FROM (
      SELECT p.id, p.kind, p.title, p.artist, p.album, p.link_url, p.note, p.mood, p.audience,
        p.created_at, p.edited_at, p.author_id, p.media_id
      FROM home_timeline ht
      INNER JOIN posts p ON p.id = ht.post_id
      WHERE ht.user_id = p_viewer
        AND (p.author_id = p_viewer OR (
          NOT (EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = p.author_id AND b.blocked_id = p_viewer)
            OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = p_viewer AND b.blocked_id = p.author_id))
          AND (p.audience = 'everyone'
            OR (p.audience = 'followers' AND EXISTS (
              SELECT 1 FROM follows f WHERE f.follower_id = p_viewer AND f.followee_id = p.author_id)))))
      ORDER BY ht.created_at DESC, ht.post_id DESC
      LIMIT p_limit
    ) pg
    INNER JOIN profiles pr ON pr.user_id = pg.author_id
    LEFT JOIN media m ON m.id = pg.media_id
    LEFT JOIN link_unfurls lu ON lu.url = pg.link_url
    ORDER BY pg.created_at DESC, pg.id DESC;
  ELSE
    RETURN QUERY
    SELECT pg.id, pg.kind, pg.title, pg.artist, pg.album, pg.link_url, pg.note, pg.mood,
      pg.audience, pg.created_at, pg.edited_at, pg.author_id,
      pr.username, pr.display_name, pr.avatar_url,
      m.id, m.width, m.height,
      lu.status, lu.title, lu.artist, lu.embed_url, lu.artwork_sha256,
      (SELECT count(*)::int FROM post_likes l WHERE l.post_id = pg.id),
      (SELECT count(*)::int FROM comments c WHERE c.post_id = pg.id),
      EXISTS (SELECT 1 FROM post_likes l WHERE l.post_id = pg.id AND l.user_id = p_viewer),
      EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = p_viewer AND f.followee_id = pg.author_id)
    FROM (
      SELECT p.id, p.kind, p.title, p.artist, p.album, p.link_url, p.note, p.mood, p.audience,
        p.created_at, p.edited_at, p.author_id, p.media_id
      FROM home_timeline ht
      INNER JOIN posts p ON p.id = ht.post_id
      WHERE ht.user_id = p_viewer
        AND (ht.created_at, ht.post_id) < (p_before_at, p_before_id)
        AND (p.author_id = p_viewer OR (
          NOT (EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = p.author_id AND b.blocked_id = p_viewer)
            OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = p_viewer AND b.blocked_id = p.author_id))
          AND (p.audience = 'everyone'
            OR (p.audience = 'followers' AND EXISTS (
              SELECT 1 FROM follows f WHERE f.follower_id = p_viewer AND f.followee_id = p.author_id)))))
      ORDER BY ht.created_at DESC, ht.post_id DESC
      LIMIT p_limit
    ) pg
    INNER JOIN profiles pr ON pr.user_id = pg.author_id
    LEFT JOIN media m ON m.id = pg.media_id
    LEFT JOIN link_unfurls lu ON lu.url = pg.link_url
    ORDER BY pg.created_at DESC, pg.id DESC;
  END IF;
END $$;
