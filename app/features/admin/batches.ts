/** Spec §5/§9: bulk e-mail goes out in batches of 100 recipients. */
export const EMAIL_BATCH_SIZE = 100;
/** How many batches are in flight at once. */
export const EMAIL_BATCH_CONCURRENCY = 3;

/** Splits `items` into consecutive batches of at most `size` (250 → 100, 100, 50). */
export function splitIntoBatches<T>(items: readonly T[], size = EMAIL_BATCH_SIZE): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError("batch size must be ≥ 1");
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/**
 * Runs `task` for every item with at most `limit` running at once, and settles every one:
 * a failure never stops the others. Results keep the order of `items`.
 */
export async function settleWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: "fulfilled", value: await task(items[index] as T, index) };
      } catch (reason) {
        results[index] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
