import { index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { user } from "./auth";
import { bytea } from "./media";

export const DATA_EXPORT_STATUSES = ["running", "ready", "failed"] as const;
export type DataExportStatus = (typeof DATA_EXPORT_STATUSES)[number];

/**
 * A person's "download everything" archive (a zip of JSON files and their images), prepared in
 * the background. The bytes live in the database like media, so any instance serves the link.
 */
export const dataExports = pgTable(
  "data_exports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    status: text("status", { enum: DATA_EXPORT_STATUSES }).notNull().default("running"),
    /** 0–100, for the progress bar. */
    progress: integer("progress").notNull().default(0),
    bytes: bytea("bytes"),
    byteSize: integer("byte_size"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** After this the archive is deleted and the link stops working. */
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [index("data_exports_user_idx").on(t.userId, t.createdAt)],
);
