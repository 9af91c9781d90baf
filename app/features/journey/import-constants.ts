/** Listening-history import limits and texts shared by the server and the browser (no imports). */

/** Largest upload of history files, all files together (bytes). */
export const IMPORT_MAX_BYTES = 200 * 1024 * 1024;
/** Most files in one upload (a zip counts as one). */
export const IMPORT_MAX_FILES = 50;
/** Most plays one upload may hold. */
export const IMPORT_MAX_ROWS = 3_000_000;
/** What the file input offers. */
export const IMPORT_ACCEPT = ".json,.csv,.zip,.jsonl,application/json,text/csv,application/zip";
