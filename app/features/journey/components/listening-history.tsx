import { useEffect } from "react";
import { Form, useNavigation, useRevalidator } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { RelativeTime } from "~/components/ui/relative-time";
import { SectionHeader } from "~/components/ui/section-header";
import { SendStatus } from "~/components/ui/send-status";
import type { ListenImportSummary } from "~/db/schema/listens";
import { uploadPercent, useUploadProgress } from "~/lib/upload-progress";
import { IMPORT_ACCEPT, IMPORT_MAX_BYTES } from "../import-constants";
import type { ListenImportView } from "../import-types";

const number = (n: number) => n.toLocaleString("en-US");
/** Bytes as megabytes with one decimal. */
const megabytes = (bytes: number) =>
  (bytes / 1024 / 1024).toLocaleString("en-US", {
    maximumFractionDigits: 1,
    minimumFractionDigits: 1,
  });

function day(iso: string | null): string {
  return iso ? iso.slice(0, 10) : "—";
}

const STATUS_LABELS: Record<ListenImportView["status"], string> = {
  preview: "Waiting for you to confirm",
  importing: "Importing",
  done: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** Which files to get from each service, and how. */
function Instructions() {
  return (
    <div className="flex flex-col gap-3 text-sm">
      <div>
        <h3 className="font-semibold">Spotify</h3>
        <p className="text-muted-foreground">
          On spotify.com open Account → Privacy settings → “Download your data”. Ask for{" "}
          <strong className="text-foreground">Extended streaming history</strong> (every play since
          you joined, with albums; about 30 days) or{" "}
          <strong className="text-foreground">Account data</strong> (the last year; about 5 days).
          Upload the zip Spotify mails you as it is, or the{" "}
          <code>Streaming_History_Audio_….json</code> / <code>StreamingHistory_music_N.json</code>{" "}
          files in it.
        </p>
      </div>
      <div>
        <h3 className="font-semibold">Last.fm</h3>
        <p className="text-muted-foreground">
          Export your scrobbles as CSV with an exporter such as lastfm-to-csv (columns{" "}
          <code>artist, album, track, date</code>) or one with the{" "}
          <code>uts, utc_time, artist, …</code> header, and upload the <code>.csv</code> file.
        </p>
      </div>
      <div>
        <h3 className="font-semibold">ListenBrainz</h3>
        <p className="text-muted-foreground">
          On listenbrainz.org open Settings → Export data → “Export listens”, and upload the zip (it
          holds <code>listens/YEAR/MONTH.jsonl</code>) or the <code>.jsonl</code> files.
        </p>
      </div>
      <p className="text-muted-foreground">
        You see what we found before anything is added. Plays shorter than 30 seconds, private
        sessions, podcasts and audiobooks are left out, and a play already in your history is never
        added twice, so importing the same files again is safe.
      </p>
    </div>
  );
}

/**
 * None of these is sent again by itself after a network failure (ADR 037): reading files makes
 * a new preview, and Import or Cancel only applies to a preview still waiting. The person's
 * Retry sends it again.
 */
const KEPT_FOR_RETRY = { repeat: false };

function UploadForm() {
  const navigation = useNavigation();
  const isUploading =
    navigation.state !== "idle" &&
    navigation.formMethod === "POST" &&
    navigation.formEncType === "multipart/form-data";
  const progress = useUploadProgress();
  const sending = isUploading && progress !== null && !progress.sent && progress.total > 0;
  const percent = progress ? uploadPercent(progress) : 0;
  // The files stay chosen after a network failure; the person's Retry reads them (ADR 037).
  const upload = useFormResend("upload", KEPT_FOR_RETRY);
  return (
    <Form
      ref={upload.formRef}
      method="post"
      encType="multipart/form-data"
      className="flex flex-col gap-3"
    >
      <input type="hidden" name="intent" value="upload" />
      <div className="flex flex-col gap-1">
        <label htmlFor="history-files" className="text-sm font-medium">
          History files
        </label>
        <input
          id="history-files"
          name="files"
          type="file"
          multiple
          required
          accept={IMPORT_ACCEPT}
          aria-describedby="history-files-hint"
          className="block w-full rounded-lg border border-border bg-background p-2 text-sm file:mr-3 file:rounded-md file:border-0 file:bg-muted file:px-3 file:py-1.5 file:text-sm file:font-medium file:text-foreground"
        />
        <p id="history-files-hint" className="text-sm text-muted-foreground">
          .json, .csv, .jsonl or .zip; several at once; up to {IMPORT_MAX_BYTES / 1024 / 1024} MB in
          all.
        </p>
      </div>
      {sending && progress ? (
        <div className="flex flex-col gap-1">
          <label htmlFor="history-upload-progress" className="text-sm font-medium">
            Uploading your files
          </label>
          <progress
            id="history-upload-progress"
            max={100}
            value={percent}
            aria-valuetext={`${percent}% (${megabytes(progress.loaded)} of ${megabytes(progress.total)} MB)`}
            className="h-2 w-full max-w-md accent-primary"
          />
          <p className="text-sm text-muted-foreground" aria-hidden="true">
            {percent}% · {megabytes(progress.loaded)} of {megabytes(progress.total)} MB
          </p>
        </div>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" disabled={isUploading}>
          {sending ? `Uploading… ${percent}%` : isUploading ? "Reading your files…" : "Read files"}
        </Button>
        <SendStatus state={upload.state} onRetry={upload.retryNow} />
      </div>
    </Form>
  );
}

function Preview({ item, summary }: { item: ListenImportView; summary: ListenImportSummary }) {
  const navigation = useNavigation();
  const isBusy = navigation.state !== "idle" && navigation.formMethod === "POST";
  const confirm = useFormResend("confirm", KEPT_FOR_RETRY);
  const cancel = useFormResend("cancel", KEPT_FOR_RETRY);
  return (
    <Card role="region" aria-labelledby="preview-heading">
      <h2 id="preview-heading" className="text-xl font-semibold">
        Preview
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">
        Nothing is in your history yet. Check what we found, then import it or cancel.
      </p>
      <dl className="mt-4 grid gap-3 sm:grid-cols-2">
        <div className="rounded-lg border border-border p-3">
          <dt className="text-sm text-muted-foreground">Plays to import</dt>
          <dd className="text-2xl font-semibold" data-testid="preview-plays">
            {number(summary.plays)}
          </dd>
        </div>
        <div className="rounded-lg border border-border p-3">
          <dt className="text-sm text-muted-foreground">From – to</dt>
          <dd className="text-lg font-semibold">
            {day(summary.firstPlayedAt)} – {day(summary.lastPlayedAt)}
          </dd>
        </div>
      </dl>
      {summary.topArtists.length > 0 ? (
        <section className="mt-4" aria-labelledby="preview-artists">
          <h3 id="preview-artists" className="font-semibold">
            Top artists
          </h3>
          <ol className="mt-1 list-decimal pl-6 text-sm">
            {summary.topArtists.map((artist) => (
              <li key={artist.name}>
                {artist.name}{" "}
                <span className="text-muted-foreground">({number(artist.plays)})</span>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      <section className="mt-4" aria-labelledby="preview-skipped">
        <h3 id="preview-skipped" className="font-semibold">
          Left out
        </h3>
        {summary.skipped.length === 0 ? (
          <p className="text-sm text-muted-foreground">Nothing: every row is a new play.</p>
        ) : (
          <ul className="mt-1 text-sm">
            {summary.skipped.map((s) => (
              <li key={s.reason}>
                {s.reason}: <strong>{number(s.count)}</strong>
              </li>
            ))}
          </ul>
        )}
      </section>
      {summary.problems.length > 0 ? (
        <section className="mt-4" aria-labelledby="preview-problems">
          <h3 id="preview-problems" className="font-semibold">
            Rows we could not read
          </h3>
          <ul className="mt-1 flex flex-col gap-1 text-sm">
            {summary.problems.map((p) => (
              <li key={`${p.file}:${p.line}:${p.message}`} className="break-words">
                <span className="font-medium">{p.file}</span>
                {p.line > 0 ? `, line ${p.line}` : ""}: {p.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section className="mt-4" aria-labelledby="preview-files">
        <h3 id="preview-files" className="font-semibold">
          Files read
        </h3>
        <ul className="mt-1 text-sm">
          {summary.files.map((f) => (
            <li key={f.name} className="break-words">
              {f.name} — {f.format}, {number(f.rows)} rows
            </li>
          ))}
        </ul>
      </section>
      <div className="mt-6 flex flex-wrap gap-3">
        {summary.plays > 0 ? (
          <Form ref={confirm.formRef} method="post" className="flex flex-wrap items-center gap-2">
            <input type="hidden" name="intent" value="confirm" />
            <input type="hidden" name="importId" value={item.id} />
            <Button type="submit" disabled={isBusy}>
              Import {number(summary.plays)} {summary.plays === 1 ? "play" : "plays"}
            </Button>
            <SendStatus state={confirm.state} onRetry={confirm.retryNow} />
          </Form>
        ) : (
          <p className="self-center text-sm">There is nothing new to import in these files.</p>
        )}
        <Form ref={cancel.formRef} method="post" className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="intent" value="cancel" />
          <input type="hidden" name="importId" value={item.id} />
          <Button type="submit" variant="secondary" disabled={isBusy}>
            Cancel
          </Button>
          <SendStatus state={cancel.state} onRetry={cancel.retryNow} />
        </Form>
      </div>
    </Card>
  );
}

function Progress({ item }: { item: ListenImportView }) {
  const percent = item.total > 0 ? Math.floor((100 * item.processed) / item.total) : 0;
  return (
    <Card role="region" aria-labelledby="progress-heading">
      <h2 id="progress-heading" className="text-xl font-semibold">
        Importing your listening history
      </h2>
      <div className="mt-4 flex flex-col gap-2" role="status">
        <label htmlFor="import-progress" className="text-sm font-medium">
          {number(item.processed)} of {number(item.total)} plays ({percent}%)
        </label>
        <progress
          id="import-progress"
          max={Math.max(item.total, 1)}
          value={item.processed}
          className="h-2 w-full accent-[var(--primary)]"
        />
        <p className="text-sm text-muted-foreground">
          {number(item.added)} new so far. You can leave this page: you get a notification when it
          is done.
        </p>
        <noscript>
          <a href="/settings/listening" className="text-sm font-medium text-primary underline">
            Refresh the progress
          </a>
        </noscript>
      </div>
    </Card>
  );
}

function PastImports({ items }: { items: ListenImportView[] }) {
  if (items.length === 0) return null;
  return (
    <Card role="region" aria-labelledby="past-heading">
      <h2 id="past-heading" className="text-xl font-semibold">
        Past imports
      </h2>
      <ul className="mt-3 divide-y divide-border">
        {items.map((item) => (
          <li key={item.id} className="flex flex-col gap-0.5 py-3 text-sm">
            <span>
              <span className="font-medium">{STATUS_LABELS[item.status]}</span> ·{" "}
              <RelativeTime iso={item.createdAt} />
            </span>
            {item.status === "done" ? (
              <span className="text-muted-foreground">
                {number(item.added)} plays added, {number(item.total - item.added)} already there
              </span>
            ) : item.status === "failed" ? (
              <span className="text-danger">
                {item.error ?? "The import did not finish."} ({number(item.added)} added before it
                stopped)
              </span>
            ) : item.summary ? (
              <span className="text-muted-foreground">
                {number(item.summary.plays)} plays found; nothing added
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** /settings/listening: bring plays in from files, with a preview and a progress bar. */
export function ListeningHistorySettings({
  imports,
  error,
}: {
  imports: ListenImportView[];
  error: string | null;
}) {
  const revalidator = useRevalidator();
  const current = imports.find((i) => i.status === "preview" || i.status === "importing");
  const past = imports.filter((i) => i !== current);
  const isImporting = current?.status === "importing";
  // While plays are being copied, ask for the progress every second.
  useEffect(() => {
    if (!isImporting) return;
    const timer = setInterval(() => {
      // Not while offline: that load would fail and take the page.
      if (revalidator.state === "idle" && navigator.onLine) void revalidator.revalidate();
    }, 1000);
    return () => clearInterval(timer);
  }, [isImporting, revalidator]);

  return (
    <div className="flex flex-col gap-6">
      <Card>
        <SectionHeader title="Listening history">
          Bring the plays you listened to elsewhere into your Soundtrail journey.
        </SectionHeader>
        <Instructions />
      </Card>
      {error ? (
        <p role="alert" className="rounded-lg border border-danger p-3 text-sm text-danger">
          {error}
        </p>
      ) : null}
      {current?.status === "importing" ? (
        <Progress item={current} />
      ) : current?.status === "preview" && current.summary ? (
        <Preview item={current} summary={current.summary} />
      ) : current?.status === "preview" ? (
        <Card>
          <p role="status" className="text-sm">
            Your files are being read…
          </p>
        </Card>
      ) : null}
      {isImporting ? null : (
        <Card role="region" aria-labelledby="upload-heading">
          <h2 id="upload-heading" className="mb-3 text-xl font-semibold">
            {current?.status === "preview" ? "Upload other files instead" : "Upload files"}
          </h2>
          <UploadForm />
        </Card>
      )}
      <PastImports items={past} />
    </div>
  );
}
