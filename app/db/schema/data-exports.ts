import {
  bigint,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { user } from "./auth";
import { bytea } from "./media";

export const DATA_EXPORT_STATUSES = ["running", "ready", "failed"] as const;
export type DataExportStatus = (typeof DATA_EXPORT_STATUSES)[number];

/**
 * A person's "download everything" archive (a zip of JSON files and their images), prepared in
 * the background by a job. Its bytes live in the database like media (as chunks, below), so any
 * instance serves the link.
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
    byteSize: bigint("byte_size", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** After this the archive is deleted and the link stops working. */
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [index("data_exports_user_idx").on(t.userId, t.createdAt)],
);

/**
 * The archive's bytes in pieces of about a megabyte, in order: written as the zip streams out
 * of the job and read back one at a time by the download, so neither ever holds the archive.
 */
export const dataExportChunks = pgTable(
  "data_export_chunks",
  {
    exportId: uuid("export_id")
      .notNull()
      .references(() => dataExports.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    bytes: bytea("bytes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.exportId, t.seq] })],
);
