/** One line of the results table: a measured value against its ARCHITECTURE §9 budget. */
export interface BudgetRow {
  step: string;
  metric: string;
  measured: string;
  budget: string;
  /** null: informational, no budget applies. */
  pass: boolean | null;
}

export interface StepOutcome {
  step: string;
  rows: BudgetRow[];
  /** Notes printed under the table (method, sizes, caveats). */
  notes: string[];
  seconds: number;
}

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - text.length));
}

export function formatTable(rows: BudgetRow[]): string {
  const header = ["step", "metric", "measured", "budget", "result"];
  const cells = rows.map((r) => [
    r.step,
    r.metric,
    r.measured,
    r.budget,
    r.pass === null ? "info" : r.pass ? "PASS" : "FAIL",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: string[]) => `| ${c.map((v, i) => pad(v, widths[i] ?? 0)).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...cells.map(line),
  ].join("\n");
}

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/**
 * Times `call` sequentially: up to `warmRuns` warm-up calls (at most 5 s), then up to `runs`
 * timed calls, stopping after `maxSeconds` once `minRuns` are in. Milliseconds per call.
 */
export async function timeCalls(
  call: () => Promise<unknown>,
  options: { runs: number; maxSeconds: number; minRuns: number; warmRuns: number },
): Promise<number[]> {
  const warmUntil = performance.now() + 5_000;
  for (
    let i = 0;
    i < Math.min(options.warmRuns, options.runs) && performance.now() < warmUntil;
    i++
  ) {
    await call();
  }
  const samples: number[] = [];
  const stopAt = performance.now() + options.maxSeconds * 1000;
  while (
    samples.length < options.runs &&
    (samples.length < options.minRuns || performance.now() < stopAt)
  ) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return samples;
}
