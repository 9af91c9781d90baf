import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { artistKey, titleKey } from "~/core/music-keys";
import { createZip } from "../../../../tests/support/zip";
import { type ReadBatch, readBatches } from "./batches.server";
import { parseLastfmDate } from "./lastfm.server";
import {
  formatByContent,
  formatByName,
  type HistoryEvent,
  type HistoryFile,
  readHistoryFiles,
} from "./read-files.server";
import { parseSpotifyEndTime } from "./spotify.server";
import type { ImportedPlay, SkippedRow } from "./types";
import { importWorkerScript, readImportBatches, setImportReadMode } from "./worker.server";

const dir = mkdtempSync(path.join(tmpdir(), "soundtrail-importers-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCounter = 0;
function file(name: string, content: string | Uint8Array): HistoryFile {
  fileCounter++;
  const at = path.join(dir, `${fileCounter}-${path.basename(name)}`);
  writeFileSync(at, content);
  return { name, path: at };
}

async function read(...files: HistoryFile[]) {
  const events: HistoryEvent[] = [];
  for await (const event of readHistoryFiles(files)) events.push(event);
  const items = events.flatMap((e) => (e.type === "item" ? [{ ...e.item, file: e.file }] : []));
  return {
    plays: items.filter((i): i is ImportedPlay & { file: string } => i.kind === "play"),
    skips: items.filter((i): i is SkippedRow & { file: string } => i.kind === "skip"),
    files: events.flatMap((e) => (e.type === "file" ? [e.report] : [])),
  };
}

const utc = (...parts: [number, number, number, number, number, number?]) =>
  Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3], parts[4], parts[5] ?? 0) / 1000;

describe("Spotify account data (StreamingHistory_music_N.json)", () => {
  it("reads plays, starting msPlayed before endTime (UTC), and skips short and broken rows", async () => {
    const { plays, skips, files } = await read(
      file(
        "StreamingHistory_music_0.json",
        JSON.stringify(
          [
            {
              endTime: "2014-05-22 20:11",
              artistName: "Radiohead",
              trackName: "Airbag - Remastered 2009",
              msPlayed: 200_000,
            },
            {
              endTime: "2014-05-22 20:12",
              artistName: "Björk",
              trackName: "Jóga",
              msPlayed: 29_999,
            },
            {
              endTime: "yesterday",
              artistName: "Björk",
              trackName: "Hyperballad",
              msPlayed: 90_000,
            },
            {
              endTime: "2014-05-23 08:00",
              artistName: "",
              trackName: "Untitled",
              msPlayed: 90_000,
            },
            "not an object",
            {
              endTime: "2014-05-23 09:00",
              artistName: "Björk",
              trackName: "Army of Me",
              msPlayed: 60_000,
            },
          ],
          null,
          2,
        ),
      ),
    );
    expect(files).toEqual([{ name: "StreamingHistory_music_0.json", format: "spotify", rows: 6 }]);
    expect(plays).toHaveLength(2);
    expect(plays[0]).toMatchObject({
      listenedAt: utc(2014, 5, 22, 20, 11) - 200,
      durationMs: 200_000,
      artistName: "Radiohead",
      trackName: "Airbag - Remastered 2009",
      releaseName: null,
      artistKey: "radiohead",
      trackKey: titleKey("Airbag"),
      source: "spotify",
    });
    expect(plays[1]?.artistKey).toBe(artistKey("Bjork"));
    expect(skips.map((s) => [s.reason, s.line])).toEqual([
      ["short", 2],
      ["broken", 3],
      ["broken", 4],
      ["broken", 5],
    ]);
    expect(skips[1]?.message).toContain("endTime");
    expect(skips[2]?.message).toContain("artist");
  });

  it("marks every row of a podcast history file as a podcast", async () => {
    const { plays, skips } = await read(
      file(
        "StreamingHistory_podcast_0.json",
        JSON.stringify([
          {
            endTime: "2020-01-01 10:00",
            podcastName: "A Show",
            episodeName: "Ep 1",
            msPlayed: 900_000,
          },
        ]),
      ),
    );
    expect(plays).toEqual([]);
    expect(skips.map((s) => s.reason)).toEqual(["podcast"]);
  });

  it("parses endTime strictly as UTC", () => {
    expect(parseSpotifyEndTime("2021-12-31 23:59")).toBe(Date.UTC(2021, 11, 31, 23, 59));
    expect(Number.isNaN(parseSpotifyEndTime("2021-13-01 10:00"))).toBe(true);
    expect(Number.isNaN(parseSpotifyEndTime(42))).toBe(true);
  });
});

function extended(overrides: Record<string, unknown>) {
  return {
    ts: "2019-06-01T12:34:56Z",
    platform: "Android OS",
    ms_played: 180_000,
    conn_country: "DE",
    master_metadata_track_name: "Heroes",
    master_metadata_album_artist_name: "David Bowie",
    master_metadata_album_album_name: "“Heroes” (2017 Remaster)",
    spotify_track_uri: "spotify:track:7Jh1bpe76CNTCgdgAdBw4Z",
    episode_name: null,
    episode_show_name: null,
    spotify_episode_uri: null,
    audiobook_title: null,
    audiobook_uri: null,
    audiobook_chapter_uri: null,
    audiobook_chapter_title: null,
    reason_start: "trackdone",
    reason_end: "trackdone",
    shuffle: false,
    skipped: false,
    offline: false,
    offline_timestamp: null,
    incognito_mode: false,
    ...overrides,
  };
}

describe("Spotify extended streaming history", () => {
  it("reads plays with albums and leaves out podcasts, audiobooks, private sessions and short plays", async () => {
    const rows = [
      extended({}),
      extended({ ts: "2019-06-01T12:40:00Z", episode_name: "Ep 4", episode_show_name: "A Show" }),
      extended({ audiobook_title: "A Book", audiobook_uri: "spotify:audiobook:1" }),
      extended({ incognito_mode: true }),
      extended({ ms_played: 12_000 }),
      extended({ master_metadata_track_name: null, master_metadata_album_artist_name: null }),
      extended({ ts: "2019-06-01 12:00" }),
      // Reported with an offset: still one instant.
      extended({ ts: "2019-06-01T14:00:00+02:00", master_metadata_track_name: "Sound and Vision" }),
    ];
    const { plays, skips, files } = await read(
      file("Streaming_History_Audio_2019_3.json", JSON.stringify(rows)),
    );
    expect(files[0]).toMatchObject({ format: "spotify_extended", rows: 8 });
    expect(plays.map((p) => [p.listenedAt, p.trackName, p.releaseName])).toEqual([
      [utc(2019, 6, 1, 12, 31, 56), "Heroes", "“Heroes” (2017 Remaster)"],
      [utc(2019, 6, 1, 11, 57, 0), "Sound and Vision", "“Heroes” (2017 Remaster)"],
    ]);
    expect(plays[0]).toMatchObject({
      source: "spotify_extended",
      durationMs: 180_000,
      releaseKey: "heroes",
    });
    expect(skips.map((s) => [s.reason, s.line])).toEqual([
      ["podcast", 2],
      ["audiobook", 3],
      ["incognito", 4],
      ["short", 5],
      ["broken", 6],
      ["broken", 7],
    ]);
  });

  it("reads the older endsong_N.json name, and finds the format from the content of another name", async () => {
    const { plays, files } = await read(
      file("endsong_0.json", JSON.stringify([extended({})])),
      file("my-history.json", JSON.stringify([extended({ master_metadata_track_name: "Helden" })])),
    );
    expect(files.map((f) => f.format)).toEqual(["spotify_extended", "spotify_extended"]);
    expect(plays.map((p) => p.trackName)).toEqual(["Heroes", "Helden"]);
  });

  it("keeps the plays before a file breaks off and says where it broke", async () => {
    const whole = JSON.stringify([extended({}), extended({ ts: "2019-06-02T10:00:00Z" })]);
    const { plays, skips } = await read(
      file("Streaming_History_Audio_2019.json", whole.slice(0, whole.length - 40)),
    );
    expect(plays).toHaveLength(1);
    expect(skips).toHaveLength(1);
    expect(skips[0]).toMatchObject({ reason: "broken", line: 2 });
    expect(skips[0]?.message).toContain("after entry 1");
  });
});

describe("Last.fm CSV", () => {
  it("reads the headerless artist,album,track,date layout as UTC, with line numbers for broken rows", async () => {
    const csv = [
      '"Radiohead","OK Computer","Airbag","22 May 2014, 20:11"',
      "Björk,Debut,Human Behaviour,01 Jan 2015 00:05",
      "Nobody,,Nothing,not a date",
      "Portishead,Dummy",
      '"Massive Attack","Mezzanine","Angel","03 Feb 2016, 23:59"',
    ].join("\n");
    const { plays, skips, files } = await read(file("scrobbles.csv", csv));
    expect(files[0]).toMatchObject({ format: "lastfm", rows: 5 });
    expect(plays.map((p) => [p.artistName, p.releaseName, p.trackName, p.listenedAt])).toEqual([
      ["Radiohead", "OK Computer", "Airbag", utc(2014, 5, 22, 20, 11)],
      ["Björk", "Debut", "Human Behaviour", utc(2015, 1, 1, 0, 5)],
      ["Massive Attack", "Mezzanine", "Angel", utc(2016, 2, 3, 23, 59)],
    ]);
    expect(plays[0]?.durationMs).toBeNull();
    expect(skips.map((s) => [s.reason, s.line])).toEqual([
      ["broken", 3],
      ["broken", 4],
    ]);
  });

  it("reads the uts,utc_time,artist,… header layout by its column names", async () => {
    const csv = [
      "uts,utc_time,artist,artist_mbid,album,album_mbid,track,track_mbid",
      '1400789460,"22 May 2014, 20:11",Radiohead,a74b1b7f,OK Computer,,Airbag,',
      ',"23 May 2014, 08:00",Radiohead,,OK Computer,,Paranoid Android,',
    ].join("\r\n");
    const { plays, skips } = await read(file("recenttracks.csv", csv));
    expect(skips).toEqual([]);
    expect(plays.map((p) => [p.trackName, p.listenedAt])).toEqual([
      ["Airbag", 1_400_789_460],
      ["Paranoid Android", utc(2014, 5, 23, 8, 0)],
    ]);
  });

  it("parses dates in every way the exporters write them", () => {
    expect(parseLastfmDate("22 May 2014, 20:11")).toBe(utc(2014, 5, 22, 20, 11));
    expect(parseLastfmDate("5 September 2020 7:03")).toBe(utc(2020, 9, 5, 7, 3));
    expect(parseLastfmDate("2020-09-05T07:03:00+02:00")).toBe(utc(2020, 9, 5, 5, 3));
    expect(Number.isNaN(parseLastfmDate("2020-09-05 07:03"))).toBe(true);
    expect(Number.isNaN(parseLastfmDate("32 Foo 2020, 10:00"))).toBe(true);
  });
});

describe("ListenBrainz export zip", () => {
  it("reads listens/YYYY/M.jsonl in the zip with durations, and ignores its other files", async () => {
    const encoder = new TextEncoder();
    const jan = [
      JSON.stringify({
        listened_at: 1_577_880_000,
        track_metadata: {
          artist_name: "Nils Frahm",
          track_name: "Says",
          release_name: "Spaces",
          additional_info: { duration_ms: 522_000 },
        },
      }),
      "",
      "{not json",
      JSON.stringify({
        listened_at: 1_577_890_000,
        track_metadata: {
          artist_name: "Nils Frahm",
          track_name: "Hammers",
          additional_info: { duration: 215 },
        },
      }),
      JSON.stringify({ listened_at: 1_577_900_000, track_metadata: { artist_name: "X" } }),
    ].join("\n");
    const zip = createZip([
      { name: "user.json", data: encoder.encode('{"user_name":"someone"}'), compress: true },
      { name: "feedback.jsonl", data: encoder.encode(""), compress: true },
      { name: "listens/2020/1.jsonl", data: encoder.encode(jan), compress: true },
    ]);
    // feedback.jsonl is ListenBrainz's but holds no listens: it reads as zero rows.
    const { plays, skips, files } = await read(file("listenbrainz_someone.zip", zip));
    expect(files).toContainEqual({
      name: "listenbrainz_someone.zip/listens/2020/1.jsonl",
      format: "listenbrainz",
      rows: 4,
    });
    expect(plays.map((p) => [p.listenedAt, p.trackName, p.releaseName, p.durationMs])).toEqual([
      [1_577_880_000, "Says", "Spaces", 522_000],
      [1_577_890_000, "Hammers", null, 215_000],
    ]);
    expect(plays[0]?.source).toBe("listenbrainz");
    expect(skips.map((s) => [s.reason, s.line, s.file])).toEqual([
      ["broken", 3, "listenbrainz_someone.zip/listens/2020/1.jsonl"],
      ["broken", 5, "listenbrainz_someone.zip/listens/2020/1.jsonl"],
    ]);
  });

  it("reads a Spotify zip holding several history files, and reports a damaged zip", async () => {
    const encoder = new TextEncoder();
    const zip = createZip([
      {
        name: "Spotify Extended Streaming History/Streaming_History_Audio_2019.json",
        data: encoder.encode(JSON.stringify([extended({})])),
        compress: true,
      },
      {
        name: "Spotify Extended Streaming History/Streaming_History_Video_2019.json",
        data: encoder.encode("[]"),
        compress: true,
      },
      {
        name: "MyData/StreamingHistory_music_0.json",
        data: encoder.encode(
          JSON.stringify([
            {
              endTime: "2020-01-01 10:00",
              artistName: "Low",
              trackName: "Words",
              msPlayed: 60_000,
            },
          ]),
        ),
        compress: false,
      },
      { name: "MyData/Userdata.json", data: encoder.encode('{"username":"x"}'), compress: true },
    ]);
    const { plays, files } = await read(
      file("my_spotify_data.zip", zip),
      file("broken.zip", "PK this is not a zip"),
    );
    expect(plays.map((p) => [p.source, p.trackName])).toEqual([
      ["spotify_extended", "Heroes"],
      ["spotify", "Words"],
    ]);
    expect(files.map((f) => f.format)).toEqual(["spotify_extended", "spotify", "unknown"]);
  });
});

describe("files built to exhaust memory", () => {
  it("stop at an element, line or record far larger than any play", async () => {
    const huge = "x".repeat(5 * 1024 * 1024);
    const json = await read(
      file(
        "Streaming_History_Audio_huge.json",
        JSON.stringify([
          extended({}),
          extended({ master_metadata_track_name: huge }),
          extended({}),
        ]),
      ),
    );
    expect(json.plays).toHaveLength(1);
    expect(json.skips).toHaveLength(1);
    expect(json.skips[0]).toMatchObject({ reason: "broken", line: 2 });
    expect(json.skips[0]?.message).toContain("far too large");

    const listen = (track: string) =>
      JSON.stringify({
        listened_at: 1_600_000_000,
        track_metadata: { artist_name: "A", track_name: track },
      });
    const jsonl = await read(
      file(
        "listens.jsonl",
        [listen("One"), listen(huge.slice(0, 2 * 1024 * 1024)), listen("Three")].join("\n"),
      ),
    );
    expect(jsonl.plays.map((p) => p.trackName)).toEqual(["One"]);
    expect(jsonl.skips[0]).toMatchObject({ reason: "broken", line: 2 });

    const csv = await read(
      file(
        "big.csv",
        `Low,Album,One,22 May 2014 20:11\nLow,Album,${huge.slice(0, 100_000)},22 May 2014 20:15\nLow,Album,Three,22 May 2014 20:20\n`,
      ),
    );
    expect(csv.plays.map((p) => p.trackName)).toEqual(["One"]);
    expect(csv.skips.map((s) => [s.reason, s.line])).toEqual([["broken", 2]]);
    expect(csv.skips[0]?.message).toContain("far too long");
  });
});

describe("format detection", () => {
  it("knows the files by name, then by content", () => {
    expect(formatByName("StreamingHistory_music_3.json")).toBe("spotify");
    expect(formatByName("StreamingHistory0.json")).toBe("spotify");
    expect(formatByName("Streaming_History_Audio_2018-2020_1.json")).toBe("spotify_extended");
    expect(formatByName("endsong_12.json")).toBe("spotify_extended");
    expect(formatByName("listens/2021/11.jsonl")).toBe("listenbrainz");
    expect(formatByName("export.CSV")).toBe("lastfm");
    expect(formatByName("data.zip")).toBe("zip");
    expect(formatByName("other.json")).toBeNull();
    expect(formatByName("picture.png")).toBe("unknown");
    expect(formatByContent('[{"ts":"2019-01-01T00:00:00Z","ms_played":1}]')).toBe(
      "spotify_extended",
    );
    expect(formatByContent('[{"endTime":"2019-01-01 00:00","msPlayed":1}]')).toBe("spotify");
    expect(formatByContent('[{"listened_at":1,"track_metadata":{}}]')).toBe("listenbrainz_json");
    expect(formatByContent('{"username":"x"}')).toBe("unknown");
  });
});

describe("reading in batches, in a worker thread or not", () => {
  /** A Spotify extended history of `count` plays with a short play, a broken row and a repeat. */
  function mixedHistory(count: number) {
    const rows: unknown[] = [];
    for (let i = 0; i < count; i++) {
      rows.push(
        extended({
          ts: new Date(Date.UTC(2020, 0, 1) + i * 240_000).toISOString(),
          master_metadata_track_name: `Song ${i % 7} (Remastered 2011)`,
          master_metadata_album_artist_name: `The Band ${i % 3}`,
        }),
      );
    }
    rows.splice(5, 0, extended({ ms_played: 1000 }));
    rows.splice(9, 0, extended({ ts: "last week" }));
    rows.push(rows[0]);
    return JSON.stringify(rows);
  }

  async function collect(batches: AsyncIterable<ReadBatch>) {
    const all: ReadBatch[] = [];
    for await (const batch of batches) all.push(batch);
    return all;
  }

  const options = { batchSize: 10, maxProblems: 10 };

  it("numbers the plays, and carries rows left out, broken rows with their line and files", async () => {
    const history = file("Streaming_History_Audio_2020.json", mixedHistory(25));
    const notes = file("notes.txt", "hello");
    const batches = await collect(readBatches([history, notes], options));
    expect(batches.map((b) => [b.plays, b.rows])).toEqual([
      [10, 12],
      [10, 10],
      [6, 6],
    ]);
    const rows = batches.flatMap(
      (b) => JSON.parse(b.rowsJson) as { s: number; a: string; tk: string; t: number }[],
    );
    expect(rows.map((r) => r.s)).toEqual(Array.from({ length: 26 }, (_, i) => i + 1));
    expect(rows[0]).toMatchObject({ a: "The Band 0", tk: "song 0" });
    // The repeat of the first play is read as a play: duplicates are counted in SQL.
    expect(rows[25]).toMatchObject({ a: rows[0]?.a, t: rows[0]?.t });
    expect(batches.flatMap((b) => b.skipped)).toEqual([
      ["short", 1],
      ["broken", 1],
    ]);
    expect(batches.flatMap((b) => b.problems)).toEqual([
      {
        file: "Streaming_History_Audio_2020.json",
        line: 10,
        message: "Its ts is not a UTC date like 2019-06-01T12:34:56Z.",
      },
    ]);
    expect(batches.at(-1)?.files).toEqual([
      { name: "Streaming_History_Audio_2020.json", format: "spotify_extended", rows: 28 },
      { name: "notes.txt", format: "unknown", rows: 0 },
    ]);
  });

  it("lists at most maxProblems broken rows, and counts them all", async () => {
    const csv = file("scrobbles.csv", "Low,,Words,not a date\n".repeat(5));
    const batches = await collect(readBatches([csv], { batchSize: 10, maxProblems: 2 }));
    expect(batches.flatMap((b) => b.problems).map((p) => p.line)).toEqual([1, 2]);
    expect(batches.flatMap((b) => b.skipped)).toEqual([["broken", 5]]);
  });

  it("gives the same batches from a worker thread as from this one", async () => {
    expect(await importWorkerScript()).toMatch(/import-worker\.mjs$/);
    const files = [
      file("Streaming_History_Audio_2021.json", mixedHistory(95)),
      file(
        "scrobbles.csv",
        '"Low","Things We Lost in the Fire","Sunflower","22 May 2014, 20:11"\nbroken\n',
      ),
    ];
    try {
      setImportReadMode("thread");
      const inThread = await collect(readImportBatches(files, options));
      setImportReadMode("worker");
      const inWorker = await collect(readImportBatches(files, options));
      expect(inWorker).toEqual(inThread);
      expect(inWorker.flatMap((b) => b.problems).map((p) => [p.file, p.line])).toEqual([
        ["Streaming_History_Audio_2021.json", 10],
        ["scrobbles.csv", 2],
      ]);
    } finally {
      setImportReadMode("worker");
    }
  });

  it("stops the worker when the reader stops early", async () => {
    const big = file("Streaming_History_Audio_2022.json", mixedHistory(500));
    let seen = 0;
    for await (const batch of readImportBatches([big], options)) {
      seen += batch.plays;
      if (seen >= 30) break;
    }
    expect(seen).toBe(30);
  });
});
