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
ALTER TABLE "journey_chapters" ADD CONSTRAINT "journey_chapters_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_import_rows" ADD CONSTRAINT "listen_import_rows_import_id_listen_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."listen_imports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_imports" ADD CONSTRAINT "listen_imports_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "journey_chapters_user_start_idx" ON "journey_chapters" USING btree ("user_id","starts_on");--> statement-breakpoint
CREATE INDEX "listen_imports_user_idx" ON "listen_imports" USING btree ("user_id","created_at");