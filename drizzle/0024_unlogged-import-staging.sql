-- Issue 15: plays read from an upload wait here for the person to confirm the preview. They are
-- written once and read once, and can be read again from the person's files: no WAL for them
-- (about half of what staging writes). A crash empties the table; the import then fails with a
-- message asking for the files again (app/features/journey/import.server.ts, StagingLost).
ALTER TABLE "listen_import_rows" SET UNLOGGED;
