/**
 * A package imported on its first use rather than when the server starts (issue 17, server
 * memory): image processing, the PostgreSQL driver, mail, the assistant's SDK and the history
 * importers are not needed to serve a page, and importing them all at boot cost ~40 MB of the
 * server's resident memory. The import happens once; a failed one is tried again next time.
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };
}

/** sharp (libvips), used by uploads, avatars and cover previews. */
export const loadSharp = lazyModule(async () => (await import("sharp")).default);

/** node-postgres, used only when DATABASE_URL names a PostgreSQL server. */
export const loadPg = lazyModule(async () => (await import("pg")).default);
