CREATE TABLE "maintenance_tables" (
	"table_name" text PRIMARY KEY NOT NULL,
	"carried_dead" bigint DEFAULT 0 NOT NULL,
	"carried_modified" bigint DEFAULT 0 NOT NULL,
	"seen_dead" bigint DEFAULT 0 NOT NULL,
	"seen_modified" bigint DEFAULT 0 NOT NULL,
	"server_start" timestamp with time zone NOT NULL
);
