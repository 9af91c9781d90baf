/**
 * Polls `check` until it returns a value (not undefined) and returns it. The deadline only
 * turns a hang into a failure that says what never happened: it is generous (a busy 2-core
 * machine runs several suites at once), never a timing the test asserts.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  options: { timeoutMs?: number; explain?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}${options.explain ? `\n${options.explain()}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until `check()` is true (see waitFor). */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>) {
  await waitFor(what, async () => ((await check()) ? true : undefined));
}
