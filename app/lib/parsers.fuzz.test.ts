import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePageParam } from "~/features/admin/paging";
import * as adminSchemas from "~/features/admin/schemas";
import * as authSchemas from "~/features/auth/schemas";
import { normalizePhone } from "~/features/auth/schemas";
import { readUnsubscribeToken } from "~/features/mail/preferences.server";
import { FEED_TABS, parseFeedTab } from "~/features/posts/feed.server";
import * as postSchemas from "~/features/posts/schemas";
import { parseEventStream } from "~/features/realtime/live-client";
import {
  MUSIC_SECTIONS,
  normalizeQuery,
  parseMusicSection,
  parseSearchType,
  SEARCH_QUERY_MAX_LENGTH,
  SEARCH_TYPES,
} from "~/features/search/query";
import * as settingsSchemas from "~/features/settings/schemas";
import { parseCookies } from "./cookies.server";
import { FLASH_COOKIE } from "./toast";
import { readFlashToast } from "./toast.server";

/*
 * Property tests for every parser and validator that reads what a visitor sends (query
 * parameters, cookies, form fields, tokens, the event stream): arbitrary strings — lone
 * surrogates, control characters, very long ones — never make them throw, and what they
 * return stays inside what their callers expect. (safeRedirectPath: redirects.fuzz.test.ts;
 * note text: posts/note.test.ts; search: search/*.test.ts; whole forms over HTTP:
 * server/action-fuzz.test.ts.)
 */

const RUNS = { numRuns: 300 };
/** Strings as hostile as a request can carry: any UTF-16 code unit, lone surrogates included. */
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ maxLength: 2000 }),
  fc.constantFrom("", " ", "\u0000", "\uD800", "\uDFFF", "%", "%E0%A4%A", "=", ";", "1e9", "-1"),
);
const maybe = fc.option(text, { nil: undefined });

describe("query parameter parsers", () => {
  it("parsePageParam: always a page number from 1 up", () => {
    fc.assert(
      fc.property(fc.option(text, { nil: null }), (value) => {
        const page = parsePageParam(value);
        expect(Number.isSafeInteger(page) && page >= 1).toBe(true);
      }),
      RUNS,
    );
  });

  it("search: the type and section are one of theirs, the query is short and well formed", () => {
    fc.assert(
      fc.property(maybe, maybe, maybe, (type, section, query) => {
        expect(SEARCH_TYPES).toContain(parseSearchType(type));
        const parsedSection = parseMusicSection(section);
        if (parsedSection !== null) expect(MUSIC_SECTIONS).toContain(parsedSection);
        const normal = normalizeQuery(query);
        expect(Array.from(normal).length).toBeLessThanOrEqual(SEARCH_QUERY_MAX_LENGTH);
        expect(normal).not.toMatch(
          /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
        );
        // biome-ignore lint/suspicious/noControlCharactersInRegex: checking they are gone
        expect(normal).not.toMatch(/[\u0000-\u001f\u007f]/);
      }),
      RUNS,
    );
  });

  it("parseFeedTab: one of the tabs, and signed-out visitors only ever get Everyone", () => {
    fc.assert(
      fc.property(maybe, fc.boolean(), (value, signedIn) => {
        const tab = parseFeedTab(value, signedIn);
        expect(FEED_TABS).toContain(tab);
        if (!signedIn) expect(tab).toBe("everyone");
      }),
      RUNS,
    );
  });
});

describe("contact and token parsers", () => {
  it("normalizePhone: null, or + and 7–15 digits", () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.stringMatching(/^(\+|00)?[0-9 ()-]{0,20}$/)), (value) => {
        const phone = normalizePhone(value);
        if (phone !== null) expect(phone).toMatch(/^\+[1-9]\d{6,14}$/);
      }),
      RUNS,
    );
  });

  it("readUnsubscribeToken: nothing forged or mangled is ever accepted", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          maybe,
          fc
            .tuple(fc.base64String({ maxLength: 40 }), text, fc.base64String({ maxLength: 64 }))
            .map(([a, b, c]) => `${a}.${b}.${c}`),
        ),
        (token) => {
          expect(readUnsubscribeToken(token)).toBeNull();
        },
      ),
      RUNS,
    );
  });

  it("parseCookies and the flash toast: any Cookie header is read without throwing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          text,
          fc
            .array(fc.tuple(text, text), { maxLength: 6 })
            .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("; ")),
          text.map((v) => `${FLASH_COOKIE}=${v}`),
          fc
            .tuple(fc.base64String({ maxLength: 200 }), fc.base64String({ maxLength: 60 }))
            .map(([p, m]) => `${FLASH_COOKIE}=${p}.${m}`),
        ),
        async (header) => {
          expect(parseCookies(header)).toBeInstanceOf(Map);
          let headers: Headers;
          try {
            headers = new Headers({ Cookie: header });
          } catch {
            return; // not a header a client could send (fetch refuses it too)
          }
          const { toast } = await readFlashToast(new Request("http://localhost/", { headers }));
          // Only a toast signed with the server's secret is shown.
          expect(toast).toBeNull();
        },
      ),
      RUNS,
    );
  });
});

describe("the event stream parser (browser side)", () => {
  it("never throws, and gives back everything after the last complete event", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(text, fc.constantFrom("\n", "\r\n", "\n\n", "data: x", "id: 7", ":", "event:")),
          { maxLength: 20 },
        ),
        (parts) => {
          const buffer = parts.join("");
          const { events, rest } = parseEventStream(buffer);
          for (const event of events) expect(typeof event.data).toBe("string");
          expect(rest.includes("\n\n")).toBe(false);
        },
      ),
      RUNS,
    );
  });
});

type SafeParser = { safeParse: (value: unknown) => { success: boolean } };

/** Every exported Zod schema of the features (form and JSON bodies). */
const schemas: [string, SafeParser][] = Object.entries({
  ...adminSchemas,
  ...authSchemas,
  ...postSchemas,
  ...settingsSchemas,
} as Record<string, unknown>).flatMap(([name, value]) =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Partial<SafeParser>).safeParse === "function"
    ? [[name, value as SafeParser] as [string, SafeParser]]
    : [],
);

describe("the feature schemas", () => {
  it("cover the forms (sanity: the import found them)", () => {
    expect(schemas.map(([name]) => name)).toEqual(
      expect.arrayContaining(["postInputSchema", "loginSchema", "campaignSchema", "profileSchema"]),
    );
  });

  /** Field names the forms use, mixed with arbitrary ones. */
  const fieldName = fc.oneof(
    fc.constantFrom(
      "intent",
      "email",
      "phone",
      "password",
      "username",
      "displayName",
      "bio",
      "title",
      "artist",
      "album",
      "note",
      "kind",
      "audience",
      "mood",
      "linkUrl",
      "content",
      "reason",
      "details",
      "subject",
      "html",
      "emails",
      "userIds",
      "userId",
      "commentId",
      "reportId",
      "code",
      "audience",
      "__proto__",
      "constructor",
    ),
    text,
  );
  const value = fc.oneof(
    text,
    fc.constantFrom("ban", "unban", "delete", "resolve", "track", "everyone", "selected", "all"),
    fc.jsonValue({ maxDepth: 3 }),
  );

  for (const [name, schema] of schemas) {
    it(`${name}: safeParse answers any input, form-like or JSON, without throwing`, () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.dictionary(fieldName, value, { maxKeys: 12 }), fc.jsonValue(), fc.anything()),
          (input) => {
            const result = schema.safeParse(input);
            expect(typeof result.success).toBe("boolean");
          },
        ),
        { numRuns: 150 },
      );
    });
  }
});
