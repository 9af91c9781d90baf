import type { KvKey, KvStore, KvStoreSetOptions } from "@fedify/fedify";
import { sql } from "drizzle-orm";
import { getDb, rowsOf } from "~/db/client.server";
import { federationKv } from "~/db/schema";

/** A key's row id: Fedify's key parts as a JSON array (unambiguous whatever the parts hold). */
function encodeKey(key: KvKey): string {
  return JSON.stringify(key);
}

/**
 * Fedify's key–value store on our own database (the `federation_kv` table): its cache of
 * remote documents and public keys, and inbox idempotence. Works on PGlite and on PostgreSQL
 * shared by several instances. A row past its `expires_at` reads as absent; maintenance
 * deletes those (core/maintenance.server.ts).
 */
export class DatabaseKvStore implements KvStore {
  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const [row] = rowsOf<{ value: T }>(
      await getDb().execute(sql`
        select value from ${federationKv}
        where key = ${encodeKey(key)} and (expires_at is null or expires_at > now())`),
    );
    return row?.value;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    const ttlMs = options?.ttl ? options.ttl.total("millisecond") : null;
    const expiresAt =
      ttlMs === null ? sql`null` : sql`now() + make_interval(secs => ${ttlMs / 1000})`;
    // undefined has no JSON form: Fedify never stores it, but a null keeps the row readable.
    const json = JSON.stringify(value ?? null);
    await getDb().execute(sql`
      insert into ${federationKv} (key, value, expires_at)
      values (${encodeKey(key)}, ${json}::jsonb, ${expiresAt})
      on conflict (key) do update set value = excluded.value, expires_at = excluded.expires_at`);
  }

  async delete(key: KvKey): Promise<void> {
    await getDb().execute(sql`delete from ${federationKv} where key = ${encodeKey(key)}`);
  }
}
