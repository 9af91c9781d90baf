/** Traffic for the server-level steps: request loops with their latencies, /metrics reads. */

/** The METRICS_TOKEN the steps start their server with. */
export const METRICS_TOKEN = "bench-traffic-metrics-token";

export async function metrics(base: string): Promise<string> {
  const response = await fetch(`${base}/metrics`, {
    headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
  });
  return response.text();
}

export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const body = /\{(.*)\}/.exec(line)?.[1] ?? "";
    if (Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`))) {
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return total;
}

export interface Timings {
  samples: number[];
  statuses: Map<number | string, number>;
}

/** GETs `path()` in a loop until `until`, one request at a time, recording each latency. */
export async function loop(
  base: string,
  path: () => string,
  headers: Record<string, string>,
  until: () => boolean,
  into: Timings,
): Promise<void> {
  while (!until()) {
    const started = performance.now();
    let status: number | string;
    try {
      const response = await fetch(`${base}${path()}`, { headers, redirect: "manual" });
      await response.arrayBuffer();
      status = response.status;
    } catch (error) {
      status = (error as Error).message;
    }
    into.samples.push(performance.now() - started);
    into.statuses.set(status, (into.statuses.get(status) ?? 0) + 1);
  }
}

export const timings = (): Timings => ({ samples: [], statuses: new Map() });

/** Waits until no job of `kind` is queued or running (by the server's /metrics); seconds taken. */
export async function waitForJobs(base: string, kind: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const text = await metrics(base);
    const left =
      metricValue(text, "soundtrail_jobs", { kind, status: "queued" }) +
      metricValue(text, "soundtrail_jobs", { kind, status: "running" });
    if (left === 0) return (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
  }
}
