CREATE TABLE "link_unfurls" (
	"url" text PRIMARY KEY NOT NULL,
	"service" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"title" text,
	"artist" text,
	"embed_url" text,
	"artwork" "bytea",
	"artwork_width" integer,
	"artwork_height" integer,
	"artwork_sha256" text,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "link_unfurls_title_length" CHECK (char_length("link_unfurls"."title") <= 300),
	CONSTRAINT "link_unfurls_artist_length" CHECK (char_length("link_unfurls"."artist") <= 300)
);
--> statement-breakpoint
CREATE INDEX "link_unfurls_pending_idx" ON "link_unfurls" USING btree ("created_at") WHERE "link_unfurls"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "link_unfurls_artwork_idx" ON "link_unfurls" USING btree ("artwork_sha256");--> statement-breakpoint
CREATE INDEX "posts_link_url_idx" ON "posts" USING btree ("link_url") WHERE "posts"."link_url" is not null;