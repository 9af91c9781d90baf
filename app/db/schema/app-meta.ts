import { bigint, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Facts about this instance (e.g. when it was first started); one row per key. */
export const appMeta = pgTable("app_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * What maintenance last saw of each table (app/core/maintenance.server.ts): PGlite's statistics
 * start from zero at every start, so the dead and changed rows counted before a restart are
 * carried here and still count toward the next vacuum or analyze.
 */
export const maintenanceTables = pgTable("maintenance_tables", {
  tableName: text("table_name").primaryKey(),
  /** Dead rows counted before the statistics were last reset, not yet vacuumed. */
  carriedDead: bigint("carried_dead", { mode: "number" }).notNull().default(0),
  /** Rows changed before the statistics were last reset, not yet analyzed. */
  carriedModified: bigint("carried_modified", { mode: "number" }).notNull().default(0),
  /** The statistics at the last run (lost if the server restarts before the next). */
  seenDead: bigint("seen_dead", { mode: "number" }).notNull().default(0),
  seenModified: bigint("seen_modified", { mode: "number" }).notNull().default(0),
  /** When the server that counted them started (a new start: its statistics began at zero). */
  serverStart: timestamp("server_start", { withTimezone: true }).notNull(),
});
