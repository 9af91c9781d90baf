import { randomBytes } from "node:crypto";
import pg from "pg";
import { log } from "./report";

/**
 * A fresh database on the PostgreSQL server named by BENCH_DATABASE_URL (a URL whose user may
 * create databases, e.g. postgres://postgres@127.0.0.1:5432/postgres), dropped by `drop`.
 * Null when the variable is unset: the PostgreSQL rows are for information and optional.
 */
export async function benchPostgresDatabase(
  step: string,
): Promise<{ url: string; drop(): Promise<void> } | null> {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) return null;
  const name = `st_bench_${step.replace(/\W/g, "_")}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  log(`${step}: PostgreSQL database ${name}`);
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
