CREATE TABLE "journey_chapters" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"starts_on" date NOT NULL,
	"ends_on" date NOT NULL,
	"title" text,
	"note" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "journey_chapters_title_length" CHECK ("journey_chapters"."title" is null or char_length("journey_chapters"."title") <= 80),
	CONSTRAINT "journey_chapters_note_length" CHECK ("journey_chapters"."note" is null or char_length("journey_chapters"."note") <= 1000),
	CONSTRAINT "journey_chapters_range" CHECK ("journey_chapters"."starts_on" <= "journey_chapters"."ends_on")
);
--> statement-breakpoint
CREATE TABLE "journey_settings" (
	"user_id" text PRIMARY KEY NOT NULL,
	"audience" text DEFAULT 'followers' NOT NULL,
	"hidden_artists" text[] DEFAULT '{}'::text[] NOT NULL,
	"now_playing_paused" boolean DEFAULT false NOT NULL,
	"recaps_enabled" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "journey_settings_audience_check" CHECK ("journey_settings"."audience" in ('everyone', 'followers', 'only_me'))
);
--> statement-breakpoint
CREATE TABLE "listen_import_rows" (
	"import_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"listened_at" timestamp (0) with time zone NOT NULL,
	"duration_ms" integer,
	"artist_name" text NOT NULL,
	"track_name" text NOT NULL,
	"release_name" text,
	"artist_key" text NOT NULL,
	"track_key" text NOT NULL,
	"release_key" text,
	"source" text NOT NULL,
	CONSTRAINT "listen_import_rows_import_id_seq_pk" PRIMARY KEY("import_id","seq")
);
--> statement-breakpoint
CREATE TABLE "listen_imports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"status" text DEFAULT 'preview' NOT NULL,
	"summary" jsonb,
	"total" integer DEFAULT 0 NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"added" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "listen_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"hint" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "listen_tokens_name_length" CHECK (char_length("listen_tokens"."name") between 1 and 60)
);
--> statement-breakpoint
CREATE TABLE "listens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"listened_at" timestamp (0) with time zone NOT NULL,
	"duration_ms" integer,
	"artist_name" text NOT NULL,
	"track_name" text NOT NULL,
	"release_name" text,
	"artist_key" text NOT NULL,
	"track_key" text NOT NULL,
	"release_key" text,
	"source" text NOT NULL,
	"import_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "listens_names_length" CHECK (char_length("listens"."artist_name") between 1 and 512
      and char_length("listens"."track_name") between 1 and 512
      and ("listens"."release_name" is null or char_length("listens"."release_name") <= 512))
);
--> statement-breakpoint
CREATE TABLE "now_playing" (
	"user_id" text PRIMARY KEY NOT NULL,
	"artist_name" text NOT NULL,
	"track_name" text NOT NULL,
	"release_name" text,
	"duration_ms" integer,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "journey_chapters" ADD CONSTRAINT "journey_chapters_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journey_settings" ADD CONSTRAINT "journey_settings_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_import_rows" ADD CONSTRAINT "listen_import_rows_import_id_listen_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."listen_imports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_imports" ADD CONSTRAINT "listen_imports_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_tokens" ADD CONSTRAINT "listen_tokens_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listens" ADD CONSTRAINT "listens_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "now_playing" ADD CONSTRAINT "now_playing_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "journey_chapters_user_start_idx" ON "journey_chapters" USING btree ("user_id","starts_on");--> statement-breakpoint
CREATE INDEX "listen_imports_user_idx" ON "listen_imports" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "listen_tokens_hash_idx" ON "listen_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "listen_tokens_user_idx" ON "listen_tokens" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "listens_natural_key" ON "listens" USING btree ("user_id","listened_at","artist_key","track_key");--> statement-breakpoint
CREATE INDEX "listens_user_artist_idx" ON "listens" USING btree ("user_id","artist_key","listened_at");--> statement-breakpoint
CREATE INDEX "listens_import_idx" ON "listens" USING btree ("import_id");