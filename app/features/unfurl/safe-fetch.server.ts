import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";

/**
 * Fetching from the internet on behalf of what people post, safely (no SSRF): only HTTPS to
 * hosts on an allow-list, every resolved address public (the connection goes to the address
 * that was checked, so a second DNS answer cannot swap in a private one), redirects only
 * within the same host, a byte limit and a deadline for the whole exchange.
 *
 * Origins the operator configured themselves (UNFURL_*_URL, e.g. a local fake service in
 * tests) are trusted: plain HTTP and private addresses are allowed there, nowhere else.
 */

export class FetchRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FetchRefused";
  }
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface SafeFetchOptions {
  /**
   * Hosts that may be fetched over HTTPS (exact names; "*.example.com" for subdomains), or
   * "any" (federation: any public host).
   */
  allowedHosts: readonly string[] | "any";
  /**
   * Tests and local development only (FEDERATION_ALLOW_LOOPBACK): a host that resolves to
   * loopback addresses only (127.0.0.0/8, ::1), or is one, may be fetched over plain HTTP on any
   * port. Every other private address stays refused.
   */
  allowLoopback?: boolean;
  /** Extra request headers (an HTTP signature of a fetch on someone's behalf). */
  headers?: Record<string, string>;
  userAgent?: string;
  /** Origins configured by the operator: trusted as they are. */
  trustedOrigins: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
  accept: string;
  /** DNS resolution (tests resolve names to chosen addresses). */
  lookup?: Lookup;
}

export interface FetchedBody {
  url: string;
  contentType: string;
  body: Buffer;
}

const defaultLookup: Lookup = (hostname) => dns.promises.lookup(hostname, { all: true });

const blocked = new net.BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** True for an address on the public internet (not loopback, private, link-local, reserved …). */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family !== 6) return false;
  const lower = address.toLowerCase();
  // IPv4-mapped (::ffff:a.b.c.d or ::ffff:xxxx:xxxx) addresses carry an IPv4 one: judge that.
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return isPublicAddress(dotted[1]);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const hi = Number.parseInt(hex[1], 16);
    const lo = Number.parseInt(hex[2], 16);
    return isPublicAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if (lower.startsWith("::ffff:")) return false;
  return !blocked.check(address, "ipv6");
}

function hostAllowed(host: string, allowed: readonly string[] | "any"): boolean {
  if (allowed === "any") return true;
  return allowed.some((pattern) =>
    pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) : host === pattern,
  );
}

interface Target {
  url: URL;
  /** The checked address to connect to; null for a trusted origin (resolved normally). */
  address: { address: string; family: number } | null;
}

async function vet(url: URL, options: SafeFetchOptions): Promise<Target> {
  if (url.username || url.password) throw new FetchRefused("credentials in the URL");
  if (options.trustedOrigins.includes(url.origin)) return { url, address: null };
  if (options.allowLoopback) {
    const loopback = await loopbackTarget(url, options);
    if (loopback) return loopback;
  }
  if (url.protocol !== "https:") throw new FetchRefused(`not HTTPS: ${url.origin}`);
  if (url.port && url.port !== "443") throw new FetchRefused(`unexpected port: ${url.origin}`);
  const host = url.hostname.toLowerCase();
  if (net.isIP(host.replace(/^\[|\]$/g, ""))) throw new FetchRefused("an address, not a name");
  if (!hostAllowed(host, options.allowedHosts)) throw new FetchRefused(`host not allowed: ${host}`);
  const lookup = options.lookup ?? defaultLookup;
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host);
  } catch {
    throw new Error(`could not resolve ${host}`);
  }
  if (addresses.length === 0) throw new Error(`no address for ${host}`);
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  if (bad) throw new FetchRefused(`private address for ${host}: ${bad.address}`);
  return { url, address: addresses[0] ?? null };
}

function isLoopbackAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return address.startsWith("127.");
  return family === 6 && (address === "::1" || address.toLowerCase().startsWith("::ffff:127."));
}

/** With `allowLoopback`: the target when `url`'s host is (or resolves only to) loopback. */
async function loopbackTarget(url: URL, options: SafeFetchOptions): Promise<Target | null> {
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host)) {
    return isLoopbackAddress(host)
      ? { url, address: { address: host, family: net.isIP(host) } }
      : null;
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await (options.lookup ?? defaultLookup)(host);
  } catch {
    return null;
  }
  const first = addresses[0];
  if (!first || !addresses.every((a) => isLoopbackAddress(a.address))) return null;
  return { url, address: first };
}

/**
 * Throws FetchRefused unless `url` may be reached under `options` (for a request this module
 * does not make itself: a federation delivery POST). Resolves the name once; the caller's
 * connection resolves it again, so this narrows, and does not close, a DNS-rebinding window.
 */
export async function assertSafeUrl(url: URL, options: SafeFetchOptions): Promise<void> {
  await vet(url, options);
}

interface Hop {
  status: number;
  location: string | null;
  contentType: string;
  body: Buffer;
}

function request(target: Target, options: SafeFetchOptions, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const { url, address } = target;
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(
      url,
      {
        method: "GET",
        signal,
        headers: {
          ...options.headers,
          Accept: options.accept,
          "User-Agent":
            options.userAgent ?? "Soundtrail link preview (+https://github.com/soundtrail)",
        },
        // Connect to the address that was checked, whatever DNS says now.
        ...(address
          ? {
              lookup: (
                _host: string,
                opts: dns.LookupOptions,
                callback: (
                  err: NodeJS.ErrnoException | null,
                  address: string | dns.LookupAddress[],
                  family?: number,
                ) => void,
              ) => {
                if (opts.all) callback(null, [address]);
                else callback(null, address.address, address.family);
              },
            }
          : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location ?? null;
        const contentType = String(res.headers["content-type"] ?? "");
        if (status >= 300 && status < 400) {
          res.resume();
          resolve({ status, location, contentType, body: Buffer.alloc(0) });
          return;
        }
        const declared = Number(res.headers["content-length"] ?? "0");
        if (declared > options.maxBytes) {
          res.destroy();
          reject(new FetchRefused(`too large: ${declared} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > options.maxBytes) {
            res.destroy();
            reject(new FetchRefused(`too large: more than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () =>
          resolve({ status, location, contentType, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/**
 * GETs `input` under the rules above and returns a 2xx body; throws FetchRefused when a rule
 * says no, another Error when the service failed (down, slow, not found).
 */
export async function safeFetch(input: string, options: SafeFetchOptions): Promise<FetchedBody> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no complete answer within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  try {
    let url = new URL(input);
    const maxRedirects = options.maxRedirects ?? 3;
    for (let hop = 0; ; hop++) {
      const target = await vet(url, options);
      let answer: Hop;
      try {
        answer = await request(target, options, controller.signal);
      } catch (error) {
        if (controller.signal.aborted) throw controller.signal.reason;
        throw error;
      }
      if (answer.status >= 300 && answer.status < 400 && answer.location) {
        if (hop >= maxRedirects) throw new FetchRefused("too many redirects");
        const next = new URL(answer.location, url);
        if (next.host !== url.host)
          throw new FetchRefused(`redirect to another host: ${next.host}`);
        if (url.protocol === "https:" && next.protocol !== "https:") {
          throw new FetchRefused("redirect away from HTTPS");
        }
        url = next;
        continue;
      }
      if (answer.status < 200 || answer.status >= 300) {
        throw new Error(`${url.origin} answered ${answer.status}`);
      }
      return { url: url.toString(), contentType: answer.contentType, body: answer.body };
    }
  } finally {
    clearTimeout(timer);
  }
}
