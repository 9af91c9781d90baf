-- Who is asking, from a session cookie's token, in one statement whose plan the connection keeps
-- (issue 17): the session (its id and expiry) with the viewer that loadViewer reads — profile,
-- ban, guest flag, unread notifications (capped at 100, as unreadCountSql counts them: actors
-- blocked either way are not counted) and the newest notification's sequence number.
-- app/features/auth/session-viewer.server.ts calls it on every signed-in request; it decides
-- whether the row can be used as it is, or better-auth's own getSession must run (an expired
-- session, one due for renewal, a cookie it has to clear). Planning the two statements this
-- replaces cost more than running them on PGlite (52 file-size calls per request); PL/pgSQL
-- keeps its plans. A change to loadViewer's columns or to the unread rule needs a migration
-- replacing this function too (session-viewer.test.ts compares both).
-- The expiry is returned in milliseconds since the epoch: the column is a timestamp without a
-- time zone that better-auth writes in UTC.
CREATE FUNCTION "session_viewer"("p_token" text)
RETURNS TABLE (
  "session_id" text,
  "user_id" text,
  "expires_at_ms" double precision,
  "username" text,
  "display_name" text,
  "avatar_url" text,
  "roles" text[],
  "default_audience" text,
  "banned" boolean,
  "is_anonymous" boolean,
  "unread" integer,
  "notifications_seq" bigint
) LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT
    s.id,
    s.user_id,
    extract(epoch FROM (s.expires_at AT TIME ZONE 'UTC'))::double precision * 1000,
    p.username,
    p.display_name,
    p.avatar_url,
    p.roles,
    p.default_audience,
    u.banned,
    u.is_anonymous,
    (SELECT count(*)::int FROM (
      SELECT 1 FROM notifications n
      WHERE n.recipient_id = s.user_id AND n.read_at IS NULL
        AND EXISTS (
          SELECT 1 FROM notification_actors na
          WHERE na.notification_id = n.id
            AND NOT (
              EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = na.actor_id AND b.blocked_id = s.user_id)
              OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = s.user_id AND b.blocked_id = na.actor_id)
            )
        )
      LIMIT 100
    ) unread),
    (SELECT coalesce(max(n.seq), 0) FROM notifications n WHERE n.recipient_id = s.user_id)
  FROM session s
  JOIN "user" u ON u.id = s.user_id
  JOIN profiles p ON p.user_id = s.user_id
  WHERE s.token = p_token;
END $$;
