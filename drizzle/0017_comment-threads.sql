ALTER TABLE "comments" ADD COLUMN "thread_id" uuid;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_thread_id_comments_comment_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."comments"("comment_id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "comments_thread_idx" ON "comments" USING btree ("thread_id","created_at","comment_id");--> statement-breakpoint
-- Existing replies join the thread of the top-level comment their chain of replies starts at.
WITH RECURSIVE chain AS (
	SELECT "comment_id", "comment_id" AS "root" FROM "comments" WHERE "reply_to_id" IS NULL
	UNION ALL
	SELECT c."comment_id", chain."root" FROM "comments" c JOIN chain ON c."reply_to_id" = chain."comment_id"
)
UPDATE "comments" SET "thread_id" = chain."root"
FROM chain
WHERE chain."comment_id" = "comments"."comment_id" AND chain."root" <> "comments"."comment_id";
