CREATE TABLE "federation_keys" (
	"user_id" text PRIMARY KEY NOT NULL,
	"rsa_public" jsonb NOT NULL,
	"rsa_private" jsonb NOT NULL,
	"ed25519_public" jsonb NOT NULL,
	"ed25519_private" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "federation_kv" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "remote_actors" (
	"user_id" text PRIMARY KEY NOT NULL,
	"actor_uri" text NOT NULL,
	"host" text NOT NULL,
	"inbox" text NOT NULL,
	"shared_inbox" text,
	"profile_url" text,
	"followers_uri" text,
	"fetched_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "remote_comments" (
	"comment_id" uuid PRIMARY KEY NOT NULL,
	"object_uri" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "remote_posts" (
	"post_id" uuid PRIMARY KEY NOT NULL,
	"object_uri" text NOT NULL,
	"content_html" text DEFAULT '' NOT NULL,
	"url" text
);
--> statement-breakpoint
ALTER TABLE "federation_keys" ADD CONSTRAINT "federation_keys_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remote_actors" ADD CONSTRAINT "remote_actors_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remote_comments" ADD CONSTRAINT "remote_comments_comment_id_comments_comment_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("comment_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remote_posts" ADD CONSTRAINT "remote_posts_post_id_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "federation_kv_expires_idx" ON "federation_kv" USING btree ("expires_at") WHERE "federation_kv"."expires_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "remote_actors_actor_uri_idx" ON "remote_actors" USING btree ("actor_uri");--> statement-breakpoint
CREATE INDEX "remote_actors_host_idx" ON "remote_actors" USING btree ("host");--> statement-breakpoint
CREATE UNIQUE INDEX "remote_comments_object_uri_idx" ON "remote_comments" USING btree ("object_uri");--> statement-breakpoint
CREATE UNIQUE INDEX "remote_posts_object_uri_idx" ON "remote_posts" USING btree ("object_uri");