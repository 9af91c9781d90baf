import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Locator, type Page } from "@playwright/test";

export { expect };

/** The colour-mode cookie the server reads to render the right theme (app/lib/color-mode.ts). */
export const COLOR_MODE_COOKIE = "st_theme";

type ColorMode = "system" | "light" | "dark";

interface Fixtures {
  /** Stores a colour-mode preference in the browser, as the colour-mode switch would. */
  setColorMode: (mode: ColorMode) => Promise<void>;
}

export const test = base.extend<Fixtures>({
  setColorMode: async ({ context, baseURL }, use) => {
    if (!baseURL) throw new Error("playwright.config.ts must set use.baseURL");
    await use(async (mode) => {
      await context.addCookies([{ name: COLOR_MODE_COOKIE, value: mode, url: baseURL }]);
    });
  },
});

/**
 * Waits until React has hydrated the page, so clicks are handled by the app rather than by
 * the browser's default behaviour (a plain link follow or form post).
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const main = document.getElementById("main");
    const hydrated = main && Object.keys(main).some((key) => key.startsWith("__reactFiber$"));
    const router = (window as { __reactRouterDataRouter?: { state: { initialized: boolean } } })
      .__reactRouterDataRouter;
    return Boolean(hydrated && router?.state.initialized);
  });
}

const watched = new WeakSet<Page>();

/**
 * Writes what the page's scripts threw (and React's reports of errors its boundaries caught) to
 * the test's output, so a failure that shows the error screen says why. Network noise of tests
 * that go offline on purpose is left out.
 */
export function reportPageErrors(page: Page): void {
  if (watched.has(page)) return;
  watched.add(page);
  page.on("pageerror", (error) => {
    process.stderr.write(`[browser] uncaught on ${page.url()}: ${error.stack ?? error.message}\n`);
  });
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    if (/Failed to load resource|net::ERR_/.test(text)) return;
    process.stderr.write(`[browser] console.error on ${page.url()}: ${text.slice(0, 2000)}\n`);
  });
}

/** Opens `path` and waits for hydration; returns the document response. */
export async function gotoHydrated(page: Page, path: string) {
  reportPageErrors(page);
  const response = await page.goto(path);
  await waitForHydration(page);
  return response;
}

/**
 * Reloads and waits for hydration: the page loads its modules after its first paint
 * (app/lib/head-links.server.ts), so the browser's load event can come before React is ready.
 */
export async function reloadHydrated(page: Page) {
  const response = await page.reload();
  await waitForHydration(page);
  return response;
}

/** Runs axe on the whole page and fails with a readable list of what it found. */
export async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const violations = results.violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact,
    help: violation.help,
    nodes: violation.nodes.map((node) => node.target.join(" ")),
  }));
  expect(violations, "axe accessibility violations").toEqual([]);
}

/** Relative luminance (0 = black, 1 = white) of a computed CSS colour such as `rgb(3, 7, 18)`. */
export function luminance(cssColor: string): number {
  const match = cssColor.match(/rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)/);
  if (!match) throw new Error(`Not an rgb() colour: ${cssColor}`);
  const [r, g, b] = [match[1], match[2], match[3]].map((part) => {
    const c = Number(part) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The computed background colour of <body>. */
export function bodyBackground(page: Page): Promise<string> {
  return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
}

let addressCounter = 0;

/**
 * The e2e server trusts X-Forwarded-For (as behind a proxy), so each test can come from its
 * own client address and the per-address sign-up and sign-in limits of one test do not spill
 * into the next. Call it in `beforeEach` of specs that create accounts.
 */
export async function useOwnClientAddress(page: Page): Promise<void> {
  addressCounter++;
  const address = `198.51.${(process.pid % 200) + 1}.${(addressCounter % 250) + 1}`;
  await page.context().setExtraHTTPHeaders({ "X-Forwarded-For": address });
}

/** Opens the account menu behind the avatar in the header (signed in). */
export async function openAccountMenu(page: Page): Promise<void> {
  const summary = page.getByRole("banner").locator("summary", { hasText: "Account menu" });
  if ((await summary.locator("xpath=..").getAttribute("open")) === null) await summary.click();
  await expect(page.getByRole("button", { name: "Sign out", exact: true })).toBeVisible();
}

/** Signs out through the account menu. */
export async function signOutFromMenu(page: Page): Promise<void> {
  await openAccountMenu(page);
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
}

/**
 * Clicks a follow button (in `within`, the page by default) and waits for the server's answer.
 * The button turns at once (optimistic): a reload, a new page or a closed context before the
 * answer can cancel the request, and the follow never happens.
 */
export async function clickFollowButton(
  page: Page,
  name: string,
  within: Page | Locator = page,
): Promise<void> {
  const answered = page.waitForResponse(
    (response) => response.url().includes("/api/follow") && response.request().method() === "POST",
  );
  await within.getByRole("button", { name }).click();
  expect((await answered).ok()).toBe(true);
}
