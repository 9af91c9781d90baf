import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  expect,
} from "@playwright/test";
import { useOwnClientAddress as comeFromOwnAddress, gotoHydrated } from "./fixtures";
import { confirmLinkFor } from "./mail-sink";

export const PASSWORD = "Heroes-Bowie-1977";

/** Someone signed up during a test, with their signed-in browser state. */
export interface Person {
  username: string;
  displayName: string;
  storage: Awaited<ReturnType<BrowserContext["storageState"]>>;
}

/**
 * Signs a new person up on the suite's server through the real screens and the mailed link,
 * from a fresh context with its own client address (so sign-up limits are not shared).
 */
export async function signUp(
  browser: Browser,
  request: APIRequestContext,
  username: string,
  displayName: string,
): Promise<Person> {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await comeFromOwnAddress(page);
  const email = `${username}@example.org`;
  await gotoHydrated(page, "/auth/signup");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Display name").fill(displayName);
  await page.getByRole("button", { name: "Create account" }).click();
  // Hashing the password takes a while on a busy machine: a generous deadline, no timing.
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible({
    timeout: 30_000,
  });
  await page.goto(await confirmLinkFor(request, email));
  await expect(page).toHaveURL(/\/feed$/);
  const storage = await context.storageState();
  await context.close();
  return { username, displayName, storage };
}

/**
 * Signs a seeded account in through the sign-in page from a fresh context and saves its
 * browser state to `statePath` for `test.use({ storageState })`.
 */
export async function signInSeeded(
  browser: Browser,
  email: string,
  password: string,
  statePath: string,
): Promise<void> {
  // Explicitly empty: newContext() would otherwise inherit the storageState `use`d by the test
  // that happens to start this worker.
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await gotoHydrated(page, "/auth/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/feed$/);
  await context.storageState({ path: statePath });
  await context.close();
}
