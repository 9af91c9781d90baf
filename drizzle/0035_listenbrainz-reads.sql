CREATE TABLE "listen_feedback" (
	"user_id" text NOT NULL,
	"recording" uuid NOT NULL,
	"recording_msid" uuid,
	"recording_mbid" uuid,
	"score" smallint NOT NULL,
	"artist_name" text,
	"track_name" text,
	"release_name" text,
	"artist_key" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "listen_feedback_user_id_recording_pk" PRIMARY KEY("user_id","recording"),
	CONSTRAINT "listen_feedback_score_check" CHECK ("listen_feedback"."score" in (-1, 1)),
	CONSTRAINT "listen_feedback_names_length" CHECK (("listen_feedback"."artist_name" is null or char_length("listen_feedback"."artist_name") <= 512)
      and ("listen_feedback"."track_name" is null or char_length("listen_feedback"."track_name") <= 512)
      and ("listen_feedback"."release_name" is null or char_length("listen_feedback"."release_name") <= 512))
);
--> statement-breakpoint
CREATE TABLE "listen_import_marks" (
	"user_id" text NOT NULL,
	"service" text NOT NULL,
	"latest_listened_at" bigint NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "listen_import_marks_user_id_service_pk" PRIMARY KEY("user_id","service")
);
--> statement-breakpoint
ALTER TABLE "listen_feedback" ADD CONSTRAINT "listen_feedback_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listen_import_marks" ADD CONSTRAINT "listen_import_marks_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "listen_feedback_user_created_idx" ON "listen_feedback" USING btree ("user_id","created_at" DESC NULLS LAST);