import type { APIRequestContext, Browser, BrowserContext, Page } from "@playwright/test";
import { E2E_ADMIN, E2E_PASSWORD } from "../support/e2e-accounts";
import { expect, test, waitForHydration } from "./fixtures";
import { type Person, signInSeeded, signUp } from "./people";

/**
 * A corpus of hostile strings written through every writable text field (post title, artist,
 * album, note and tags, comments, display name, bio, report details, search box), then every
 * page that shows them opened in a real browser — feed, post, profile, people lists, search,
 * notifications, the admin tables — failing on any script execution: payloads call
 * `window.__xss(id)` (a trap installed before any page script), `alert()` opens a dialog we
 * listen for, a blocked inline script shows up as a CSP violation, and the DOM must hold no
 * `on…` attribute, `javascript:` link or injected <script> carrying a payload.
 * Payloads are batched per field, so the suite costs about thirty page loads.
 */

const SLOT = process.env.E2E_SLOT ?? "0";
const ADMIN_STATE = `/tmp/soundtrail-e2e-${SLOT}-xss-admin.json`;

const X = (id: number) => `__xss(${id})`;
/** Each payload calls __xss with its own number, so a hit names the payload. */
const CORPUS: string[] = [
  `<script>${X(1)}</script>`,
  `<img src=x onerror=${X(2)}>`,
  `<svg onload=${X(3)}>`,
  `<svg><script>${X(4)}</script></svg>`,
  `"><script>${X(5)}</script>`,
  `'><img src=x onerror=${X(6)}>`,
  `</textarea><script>${X(7)}</script>`,
  `</title><script>${X(8)}</script>`,
  `</script><script>${X(9)}</script>`,
  `<iframe src="javascript:${X(10)}"></iframe>`,
  `<a href="javascript:${X(11)}">click</a>`,
  `javascript:${X(12)}`,
  `JaVaScRiPt:${X(13)}`,
  ` javascript:${X(14)}`,
  `java\tscript:${X(15)}`,
  `[click](javascript:${X(16)})`,
  `[click](JAVASCRIPT:${X(17)})`,
  `![img](x" onerror="${X(18)})`,
  `<body onload=${X(19)}>`,
  `<details open ontoggle=${X(20)}>`,
  `<input autofocus onfocus=${X(21)}>`,
  `<video><source onerror=${X(22)}></video>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=${X(23)}>`,
  `<object data="javascript:${X(24)}">`,
  `<embed src="javascript:${X(25)}">`,
  `<form action="javascript:${X(26)}"><button>go</button></form>`,
  `<meta http-equiv="refresh" content="0;url=javascript:${X(27)}">`,
  `<base href="javascript:${X(28)}//">`,
  `<link rel=import href="data:text/html,<script>${X(29)}</script>">`,
  `data:text/html,<script>${X(30)}</script>`,
  `{{constructor.constructor('${X(31)}')()}}`,
  `\${${X(32)}}`,
  `{{${X(33)}}}`,
  `<%= ${X(34)} %>`,
  `#{${X(35)}}`,
  `"onmouseover="${X(36)}"`,
  `' onfocus='${X(37)}' autofocus '`,
  `\u202E<img src=x onerror=${X(38)}>`,
  `\u200B<script>${X(39)}</script>\u200B`,
  `\uFEFF<svg/onload=${X(40)}>`,
  `&lt;script&gt;${X(41)}&lt;/script&gt;`,
  `&#60;img src=x onerror=${X(42)}&#62;`,
  `%3Cscript%3E${X(43)}%3C/script%3E`,
  `<scr<script>ipt>${X(44)}</scr</script>ipt>`,
  `<img src="x" onerror="&#x5f;&#x5f;xss(45)">`,
  `<style>@import 'javascript:${X(46)}';</style>`,
  `<div style="background:url(javascript:${X(47)})">`,
  `<noscript><p title="</noscript><img src=x onerror=${X(48)}>">`,
  `<template><img src=x onerror=${X(49)}></template>`,
  `<isindex action=javascript:${X(50)} type=image>`,
  `#<img src=x onerror=${X(51)}>`,
  `#tag<svg onload=${X(52)}>`,
  `@<img src=x onerror=${X(53)}>`,
  `https://example.org/"><img src=x onerror=${X(54)}>`,
  `https://example.org/?q=<script>${X(55)}</script>`,
  `<a href="https://example.org" onclick="${X(56)}">x</a>`,
  `\`\${${X(57)}}\``,
  `</style></noscript></template><img src=x onerror=${X(58)}>`,
  `<svg><animate onbegin=${X(59)} attributeName=x dur=1s>`,
  `<img src=x:alert(1) onerror=alert(60)>`,
  `<script>alert(61)</script>`,
  `"><svg onload=alert(62)>`,
];

/** Groups of payloads that fit a field of `max` characters (each group one value). */
function pack(payloads: string[], max: number): string[] {
  const groups: string[] = [];
  let current = "";
  for (const payload of payloads) {
    const next = current ? `${current} ${payload}` : payload;
    if (next.length > max && current) {
      groups.push(current);
      current = payload.slice(0, max);
    } else {
      current = next.slice(0, max);
    }
  }
  if (current) groups.push(current);
  return groups;
}

interface Hits {
  trapped: string[];
  dialogs: string[];
  csp: string[];
}

/** Opens `path` with the trap armed; returns what fired and any injected markup found. */
async function visit(page: Page, hits: Hits, path: string): Promise<void> {
  const response = await page.goto(path, { waitUntil: "load" });
  expect(response?.status() ?? 0, `${path} answers`).toBeLessThan(500);
  // Hydrated: the client render ran too. (Never "networkidle": the live stream stays open.)
  await waitForHydration(page);
  // Give deferred handlers (onerror of images, autofocus, animations) a moment to fire.
  await page.waitForTimeout(150);
  const found = await page.evaluate(() => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll("*"))) {
      for (const attr of Array.from(el.attributes)) {
        const name = attr.name.toLowerCase();
        // Browsers ignore whitespace and control characters in a URL's scheme.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
        const value = attr.value.replace(/[\s\u0000-\u001f]/g, "").toLowerCase();
        if (name.startsWith("on")) out.push(`${el.tagName} ${name}="${attr.value}"`);
        if (
          ["href", "src", "action", "formaction", "data", "xlink:href"].includes(name) &&
          (value.startsWith("javascript:") || value.startsWith("data:text/html"))
        ) {
          out.push(`${el.tagName} ${name}="${attr.value}"`);
        }
      }
      // The app's own scripts carry the response's nonce (the hydration data among them holds
      // the payloads as escaped strings); a script without one came from a payload.
      if (el.tagName === "SCRIPT" && !(el as HTMLScriptElement).nonce) {
        out.push(`SCRIPT ${(el.textContent ?? "").slice(0, 200)}`);
      }
    }
    const trapped = (window as unknown as { __xssHits?: string[] }).__xssHits ?? [];
    return { injected: out, trapped: [...trapped] };
  });
  hits.trapped.push(...found.trapped.map((id) => `${path}: payload ${id} ran`));
  expect(found.injected, `${path}: markup from a payload in the DOM`).toEqual([]);
}

async function armedPage(context: BrowserContext, hits: Hits): Promise<Page> {
  await context.addInitScript(() => {
    const w = window as unknown as { __xss: (id: unknown) => void; __xssHits: string[] };
    w.__xssHits = [];
    w.__xss = (id) => {
      w.__xssHits.push(String(id));
    };
    document.addEventListener("securitypolicyviolation", (event) => {
      w.__xssHits.push(`CSP ${event.violatedDirective} ${event.blockedURI} ${event.sample}`);
    });
  });
  const page = await context.newPage();
  page.on("dialog", (dialog) => {
    hits.dialogs.push(`${dialog.type()}: ${dialog.message()} on ${page.url()}`);
    void dialog.dismiss();
  });
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (execute|load)/i.test(message.text())) {
      hits.csp.push(`${page.url()}: ${message.text()}`);
    }
  });
  return page;
}

async function send(
  request: APIRequestContext,
  baseURL: string,
  path: string,
  form: Record<string, string>,
  multipart = false,
) {
  const response = await request.post(path, {
    headers: { Origin: baseURL },
    ...(multipart ? { multipart: form } : { form }),
    maxRedirects: 0,
  });
  // Accepted (a redirect back with a toast): the payloads were stored, not refused.
  expect(response.status(), `POST ${path} accepted`).toBeLessThan(400);
  return response;
}

test.describe("XSS corpus through every writable field, in a real browser", () => {
  test.describe.configure({ timeout: 240_000 });

  test("no payload runs on any page that shows it", async ({ browser, request, baseURL }) => {
    if (!baseURL) throw new Error("baseURL");
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    const stamp = Date.now().toString(36);
    const author = await signUp(browser, request, `xss_a_${stamp}`, "Xss Author");
    const viewer = await signUp(browser, request, `xss_v_${stamp}`, "Xss Viewer");
    const authorContext = await contextFor(browser, author);
    const viewerContext = await contextFor(browser, viewer);
    const a = authorContext.request;
    const v = viewerContext.request;

    // The viewer posts something for the author to comment on and like (notifications).
    await createPost(v, baseURL, {
      title: "Viewer track",
      artist: "Viewer band",
      note: `xss-viewer-${stamp}`,
    });
    const viewerPost = (await ownPostIds(v))[0] as string;
    expect(viewerPost).toBeTruthy();
    // The viewer follows the author, so the author's posts reach the viewer's home feed.
    await send(v, baseURL, "/api/follow", {
      intent: "follow",
      userId: await userIdOf(v, author.username),
    });

    // Posts: every payload in a title, an artist and an album; notes carry them packed, with tags.
    const notes = pack(
      CORPUS.map((p, i) => `${p} #x${i}${stamp}`),
      1900,
    );
    const perPost = Math.ceil(CORPUS.length / 12);
    for (let i = 0; i < 12; i++) {
      const at = (k: number) => CORPUS[(i * perPost + k) % CORPUS.length] ?? "";
      await createPost(a, baseURL, {
        title: pack([at(0), at(1)], 200)[0] ?? "t",
        artist: pack([at(2), at(3)], 200)[0] ?? "a",
        album: pack([at(4)], 200)[0] ?? "",
        note: `${notes[i % notes.length] ?? ""} xss-post-${i}-${stamp}`.slice(0, 2000),
      });
    }
    const postIds = await ownPostIds(a);
    expect(postIds).toHaveLength(12);
    // Comments: the whole corpus, packed, on the viewer's post and on the author's first post.
    for (const group of pack(CORPUS, 990)) {
      await send(a, baseURL, `/post/${viewerPost}`, { intent: "add-comment", content: group });
      await send(a, baseURL, `/post/${postIds[0]}`, { intent: "add-comment", content: group });
    }
    await send(a, baseURL, "/api/like", { intent: "like", postId: viewerPost });
    // Reports, seen by the admin: details carry the corpus.
    for (const group of pack(CORPUS, 990).slice(0, 3)) {
      await send(a, baseURL, "/api/report", {
        postId: viewerPost,
        reason: "spam",
        details: group,
      });
    }
    // Profile last (the display name shows up in every notification and card): a payload as
    // display name, the corpus packed into the bio.
    const bio = pack(CORPUS, 300)[0] ?? "";
    const profile = await send(
      a,
      baseURL,
      "/settings/profile",
      {
        intent: "profile",
        displayName: CORPUS[1]?.slice(0, 60) ?? "x",
        username: author.username,
        bio,
      },
      true,
    );
    expect(profile.status()).toBeLessThan(400);

    const hits: Hits = { trapped: [], dialogs: [], csp: [] };
    const viewerPage = await armedPage(viewerContext, hits);
    const authorPage = await armedPage(authorContext, hits);
    const pages: [Page, string][] = [
      [viewerPage, "/feed"],
      [viewerPage, "/feed?tab=everyone"],
      [viewerPage, `/u/${author.username}`],
      [viewerPage, `/u/${viewer.username}/followers`],
      [viewerPage, `/post/${viewerPost}`],
      [viewerPage, `/post/${postIds[0]}`],
      [viewerPage, `/post/${postIds[5]}`],
      [viewerPage, `/post/${postIds[11]}`],
      [viewerPage, "/notifications"],
      [viewerPage, `/search?q=${encodeURIComponent("xss-post")}`],
      [viewerPage, `/search?q=${encodeURIComponent("xss-post")}&type=posts`],
      [viewerPage, `/search?q=${encodeURIComponent("Xss")}&type=people`],
      [viewerPage, `/search?q=${encodeURIComponent(`#x1${stamp}`)}&type=tags`],
      [viewerPage, "/search?q=script&type=music"],
      [authorPage, "/profile"],
      [authorPage, "/settings/profile"],
      [authorPage, `/post/${postIds[3]}/edit`],
    ];
    // The search box: payloads typed as queries (a page each, so a handful).
    for (const payload of CORPUS.slice(0, 8)) {
      pages.push([viewerPage, `/search?q=${encodeURIComponent(payload)}`]);
    }
    for (const [page, path] of pages) await visit(page, hits, path);
    // Something was actually shown: the corpus reached the pages it was meant for.
    await viewerPage.goto(`/u/${author.username}`);
    await expect(viewerPage.getByText(`xss-post-11-${stamp}`)).toBeVisible();

    // The admin's tables show reports, comments and people.
    const adminContext = await browser.newContext({ storageState: ADMIN_STATE });
    const adminPage = await armedPage(adminContext, hits);
    for (const path of [
      "/admin",
      "/admin/comments",
      "/admin/reports",
      "/admin/users",
      "/admin/audit",
    ]) {
      await visit(adminPage, hits, path);
    }
    await visit(adminPage, hits, `/admin/users?q=${encodeURIComponent(author.username)}`);
    // The bulk e-mail composer: the subject is text, the body is the admin's own HTML, shown
    // in a frame without scripts; the recipient's display name goes in escaped.
    await visit(adminPage, hits, "/admin/email");
    await adminPage.getByLabel("Subject").fill(CORPUS.slice(0, 20).join(" ").slice(0, 190));
    await adminPage
      .getByLabel("Body (HTML)")
      .fill(`<p>Hi {{display_name}}</p>${CORPUS.slice(20, 40).join("\n")}`);
    await expect(adminPage.getByTestId("preview-subject")).not.toHaveText("—");

    expect(hits.trapped, "payloads that ran").toEqual([]);
    expect(hits.dialogs, "dialogs opened").toEqual([]);
    expect(hits.csp, "CSP violations").toEqual([]);
    await authorContext.close();
    await viewerContext.close();
    await adminContext.close();
  });

  test("the trap sees a handler that gets into a page (control)", async ({ browser }) => {
    const hits: Hits = { trapped: [], dialogs: [], csp: [] };
    const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const page = await armedPage(context, hits);
    await page.goto("/auth/login");
    await waitForHydration(page);
    await page.evaluate(() => {
      document.body.insertAdjacentHTML("beforeend", '<img src="x:" onerror="__xss(0)">');
    });
    // The nonce-based CSP blocks the inline handler and reports it; either way it is seen.
    await expect
      .poll(async () => {
        const trapped = await page.evaluate(
          () => (window as unknown as { __xssHits: string[] }).__xssHits.length,
        );
        return trapped + hits.csp.length;
      })
      .toBeGreaterThan(0);
    await context.close();
  });

  test.beforeAll(async ({ browser }) => {
    await signInSeeded(browser, E2E_ADMIN.email, E2E_PASSWORD, ADMIN_STATE);
  });
});

async function contextFor(browser: Browser, person: Person): Promise<BrowserContext> {
  return browser.newContext({ storageState: person.storage });
}

/** Creates a post through the composer's form endpoint. */
async function createPost(
  request: APIRequestContext,
  baseURL: string,
  fields: { title: string; artist: string; album?: string; note: string },
): Promise<void> {
  const response = await send(
    request,
    baseURL,
    "/feed",
    {
      kind: "track",
      title: fields.title,
      artist: fields.artist,
      album: fields.album ?? "",
      note: fields.note,
      audience: "everyone",
      mood: "",
      linkUrl: "",
    },
    true,
  );
  expect(response.headers().location, "the composer accepted the post").toBe("/feed");
}

/** Ids of the signed-in person's posts, newest first (from their profile page). */
async function ownPostIds(request: APIRequestContext): Promise<string[]> {
  const html = await (await request.get("/profile")).text();
  return [...html.matchAll(/<article id="post-([0-9a-f-]{36})"/g)].map((m) => m[1] as string);
}

/** The user id of `username`, from the follow form on their page. */
async function userIdOf(request: APIRequestContext, username: string): Promise<string> {
  const html = await (await request.get(`/u/${username}`)).text();
  const id = /name="userId" value="([^"]+)"/.exec(html)?.[1];
  expect(id, `the follow form on /u/${username}`).toBeTruthy();
  return id as string;
}
