CREATE TABLE "auth_refresh_tokens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"token_session_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"parent_id" bigint,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_token_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"auth_session_id" text,
	"amr" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"refreshed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "auth_refresh_tokens" ADD CONSTRAINT "auth_refresh_tokens_token_session_id_auth_token_sessions_id_fk" FOREIGN KEY ("token_session_id") REFERENCES "public"."auth_token_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auth_token_sessions" ADD CONSTRAINT "auth_token_sessions_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auth_token_sessions" ADD CONSTRAINT "auth_token_sessions_auth_session_id_session_id_fk" FOREIGN KEY ("auth_session_id") REFERENCES "public"."session"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "auth_refresh_tokens_hash_idx" ON "auth_refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "auth_refresh_tokens_session_idx" ON "auth_refresh_tokens" USING btree ("token_session_id");--> statement-breakpoint
CREATE INDEX "auth_refresh_tokens_unused_idx" ON "auth_refresh_tokens" USING btree ("token_session_id") WHERE "auth_refresh_tokens"."used_at" is null;--> statement-breakpoint
CREATE INDEX "auth_token_sessions_user_idx" ON "auth_token_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "auth_token_sessions_auth_session_idx" ON "auth_token_sessions" USING btree ("auth_session_id");