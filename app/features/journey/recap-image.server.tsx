import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { coverSvg } from "~/features/artwork";
import { formatCount, formatListening } from "./components/format";

/**
 * The recap card as a picture: satori lays the card out as SVG (flexbox, the bundled Inter
 * fonts), resvg rasterises it to PNG. Nothing leaves the process: no browser, no outside service.
 * Portrait 1080 × 1350 (4:5), the size feeds and stories crop least.
 */
export const RECAP_WIDTH = 1080;
export const RECAP_HEIGHT = 1350;
const PADDING = 72;
const INNER = RECAP_WIDTH - 2 * PADDING;
const BIG_COVER = 300;
/** The text beside a small cover in the artists' column. */
/** A top track's name and artist, between its rank and its plays. */
const TRACK_TEXT = INNER - 40 - 150 - 2 * 16;
const ROW_TEXT = INNER - BIG_COVER - 32 - 56 - 18;

export interface RecapCardData {
  displayName: string;
  username: string;
  /** What the card is about: "Last 7 days", "2025", a chapter's title … */
  heading: string;
  /** The days it covers, as shown ("19 Nov 2026 to 25 Nov 2026"). */
  range: string;
  plays: number;
  listeningMs: number;
  /** True when some plays had no length (the time is then an estimate). */
  estimated: boolean;
  artists: number;
  topArtists: { name: string; plays: number; coverSeed: string }[];
  topTracks: { name: string; artistName: string; plays: number }[];
}

type Font = { name: string; data: Buffer; weight: 400 | 700 | 800; style: "normal" };

let fonts: Font[] | null = null;

/**
 * Inter from @fontsource/inter (WOFF: satori reads TTF, OTF and WOFF, not WOFF2), resolved in
 * node_modules at run time, so the server bundle (which keeps packages external) finds them too.
 */
function loadFonts(): Font[] {
  if (fonts) return fonts;
  const require = createRequire(import.meta.url);
  const loaded: Font[] = [];
  for (const subset of ["latin", "latin-ext"]) {
    for (const weight of [400, 700, 800] as const) {
      const file = require.resolve(`@fontsource/inter/files/inter-${subset}-${weight}-normal.woff`);
      loaded.push({ name: "Inter", data: readFileSync(file), weight, style: "normal" });
    }
  }
  fonts = loaded;
  return loaded;
}

function coverDataUri(seed: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(coverSvg(seed)).toString("base64")}`;
}

const ink = "#f8f5ff";
const soft = "rgba(248, 245, 255, 0.72)";
const faint = "rgba(248, 245, 255, 0.14)";
const accent = "#ffcf5c";

const oneLine = {
  overflow: "hidden",
  whiteSpace: "nowrap",
  textOverflow: "ellipsis",
} as const;

function StatTile({ label, value }: { label: string; value: string }) {
  return (
    <div
      style={{
        display: "flex",
        flexDirection: "column",
        width: (INNER - 40) / 3,
        padding: "22px 26px",
        borderRadius: 28,
        backgroundColor: faint,
      }}
    >
      <div style={{ display: "flex", fontSize: 50, fontWeight: 800, color: ink, ...oneLine }}>
        {value}
      </div>
      <div style={{ display: "flex", fontSize: 26, color: soft, marginTop: 4 }}>{label}</div>
    </div>
  );
}

function SectionTitle({ children }: { children: string }) {
  return (
    <div
      style={{
        display: "flex",
        fontSize: 26,
        fontWeight: 700,
        letterSpacing: 3,
        color: accent,
        textTransform: "uppercase",
        marginBottom: 18,
      }}
    >
      {children}
    </div>
  );
}

function plays(n: number): string {
  return `${formatCount(n)} ${n === 1 ? "play" : "plays"}`;
}

function Card({ data }: { data: RecapCardData }) {
  const [first, ...rest] = data.topArtists;
  return (
    <div
      style={{
        display: "flex",
        flexDirection: "column",
        width: RECAP_WIDTH,
        height: RECAP_HEIGHT,
        padding: PADDING,
        overflow: "hidden",
        fontFamily: "Inter",
        color: ink,
        backgroundImage: "linear-gradient(160deg, #3b1d8f 0%, #1d1340 45%, #0b0a17 100%)",
      }}
    >
      <div
        style={{
          display: "flex",
          fontSize: 26,
          fontWeight: 700,
          letterSpacing: 4,
          color: accent,
          textTransform: "uppercase",
        }}
      >
        Soundtrail recap
      </div>
      <div
        style={{
          display: "flex",
          fontSize: 76,
          fontWeight: 800,
          lineHeight: 1.1,
          marginTop: 14,
          width: INNER,
          ...oneLine,
        }}
      >
        {data.heading}
      </div>
      <div
        style={{
          display: "flex",
          fontSize: 32,
          color: soft,
          marginTop: 8,
          width: INNER,
          ...oneLine,
        }}
      >
        {`${data.displayName} · ${data.range}`}
      </div>
      <div style={{ display: "flex", gap: 20, marginTop: 40, width: INNER }}>
        <StatTile label="plays" value={formatCount(data.plays)} />
        <StatTile
          label={data.estimated ? "listening (estimate)" : "listening"}
          value={formatListening(data.listeningMs)}
        />
        <StatTile
          label={data.artists === 1 ? "artist" : "artists"}
          value={formatCount(data.artists)}
        />
      </div>
      <div style={{ display: "flex", flexDirection: "column", marginTop: 44, width: INNER }}>
        <SectionTitle>Top artists</SectionTitle>
        {first ? (
          <div style={{ display: "flex", gap: 32 }}>
            <div style={{ display: "flex", flexDirection: "column", width: BIG_COVER }}>
              <img
                src={coverDataUri(first.coverSeed)}
                width={BIG_COVER}
                height={BIG_COVER}
                alt=""
                style={{ borderRadius: 28 }}
              />
            </div>
            <div
              style={{ display: "flex", flexDirection: "column", width: INNER - BIG_COVER - 32 }}
            >
              <div style={{ display: "flex", fontSize: 28, color: accent, fontWeight: 700 }}>
                #1
              </div>
              <div
                style={{
                  display: "flex",
                  fontSize: 44,
                  fontWeight: 800,
                  lineHeight: 1.15,
                  width: INNER - BIG_COVER - 32,
                  ...oneLine,
                }}
              >
                {first.name}
              </div>
              <div style={{ display: "flex", fontSize: 26, color: soft, marginBottom: 16 }}>
                {plays(first.plays)}
              </div>
              {rest.slice(0, 3).map((artist, i) => (
                <div
                  key={artist.coverSeed}
                  style={{ display: "flex", alignItems: "center", gap: 18, marginTop: 12 }}
                >
                  <img
                    src={coverDataUri(artist.coverSeed)}
                    width={56}
                    height={56}
                    alt=""
                    style={{ borderRadius: 12 }}
                  />
                  <div style={{ display: "flex", flexDirection: "column", width: ROW_TEXT }}>
                    <div
                      style={{
                        display: "flex",
                        fontSize: 30,
                        fontWeight: 700,
                        width: ROW_TEXT,
                        ...oneLine,
                      }}
                    >
                      {`${i + 2}. ${artist.name}`}
                    </div>
                    <div style={{ display: "flex", fontSize: 22, color: soft }}>
                      {plays(artist.plays)}
                    </div>
                  </div>
                </div>
              ))}
            </div>
          </div>
        ) : (
          <div style={{ display: "flex", fontSize: 30, color: soft }}>No plays in this period.</div>
        )}
      </div>
      <div style={{ display: "flex", flexDirection: "column", marginTop: 44, width: INNER }}>
        <SectionTitle>Top tracks</SectionTitle>
        {data.topTracks.slice(0, 5).map((track, i) => (
          <div
            key={`${track.name}-${track.artistName}`}
            style={{ display: "flex", alignItems: "baseline", gap: 16, marginBottom: 10 }}
          >
            <div
              style={{ display: "flex", width: 40, fontSize: 28, fontWeight: 800, color: accent }}
            >
              {String(i + 1)}
            </div>
            <div style={{ display: "flex", width: TRACK_TEXT, fontSize: 30 }}>
              <div
                style={{
                  display: "flex",
                  maxWidth: TRACK_TEXT * 0.62,
                  fontWeight: 700,
                  ...oneLine,
                }}
              >
                {track.name}
              </div>
              <div style={{ display: "flex", flex: 1, color: soft, ...oneLine }}>
                {`\u00a0· ${track.artistName}`}
              </div>
            </div>
            <div
              style={{
                display: "flex",
                width: 150,
                justifyContent: "flex-end",
                fontSize: 24,
                color: soft,
              }}
            >
              {plays(track.plays)}
            </div>
          </div>
        ))}
      </div>
      <div
        style={{
          display: "flex",
          position: "absolute",
          left: PADDING,
          bottom: 56,
          width: INNER,
          justifyContent: "space-between",
          fontSize: 24,
          color: soft,
        }}
      >
        <span>{`@${data.username}`}</span>
        <span>Soundtrail</span>
      </div>
    </div>
  );
}

/** The card as PNG bytes (RECAP_WIDTH × RECAP_HEIGHT). */
export async function renderRecapPng(data: RecapCardData): Promise<Uint8Array> {
  // Loaded on the first card, not at start-up (satori's layout engine and resvg's native
  // binding are large, and most processes never draw a card).
  const [{ default: satori }, { renderAsync }] = await Promise.all([
    import("satori"),
    import("@resvg/resvg-js"),
  ]);
  const svg = await satori(<Card data={data} />, {
    width: RECAP_WIDTH,
    height: RECAP_HEIGHT,
    fonts: loadFonts(),
  });
  const rendered = await renderAsync(svg, {
    fitTo: { mode: "original" },
    font: { loadSystemFonts: false },
  });
  const png = rendered.asPng();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}
