CREATE TABLE "fanout_jobs" (
	"post_id" uuid PRIMARY KEY NOT NULL,
	"author_id" text NOT NULL,
	"after_follower" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fanout_jobs" ADD CONSTRAINT "fanout_jobs_post_id_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "follows_followee_follower_idx" ON "follows" USING btree ("followee_id","follower_id");