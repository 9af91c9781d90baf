import {
  type DocumentLoader,
  FetchError,
  getDocumentLoader,
  type KvStore,
  kvCache,
  type RemoteDocument,
  signRequest,
} from "@fedify/fedify";
import { FetchRefused, type SafeFetchOptions, safeFetch } from "~/features/unfurl/index.server";

/** JSON-LD contexts Fedify ships with: read from its copy, never fetched. */
const PRELOADED_CONTEXTS = new Set([
  "https://www.w3.org/ns/activitystreams",
  "https://w3id.org/security/v1",
  "https://w3id.org/security/data-integrity/v1",
  "https://www.w3.org/ns/did/v1",
  "https://w3id.org/security/multikey/v1",
  "https://w3id.org/identity/v1",
  "https://purl.archive.org/socialweb/webfinger",
  "http://schema.org/",
  "https://gotosocial.org/ns",
]);

/** Fedify's own loader, asked only for the preloaded contexts above (it answers from memory). */
const preloaded = getDocumentLoader();

export const FEDERATION_USER_AGENT = "Soundtrail (ActivityPub; +https://github.com/soundtrail)";

/** Rules for every remote fetch of federation: the SSRF fence of app/features/unfurl. */
export function remoteFetchOptions(allowLoopback: boolean): SafeFetchOptions {
  return {
    allowedHosts: "any",
    trustedOrigins: [],
    allowLoopback,
    maxBytes: 1024 * 1024,
    timeoutMs: 10_000,
    maxRedirects: 3,
    accept:
      'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
    userAgent: FEDERATION_USER_AGENT,
  };
}

/**
 * Fedify's document loader on our safe fetch: public HTTPS addresses only (plus loopback with
 * FEDERATION_ALLOW_LOOPBACK), a size limit and a deadline, redirects within the host. Refusals
 * become Fedify's FetchError, so a refused key or actor reads as "could not fetch".
 */
export function createDocumentLoader(
  allowLoopback: boolean,
  identity?: { keyId: URL; privateKey: CryptoKey },
): DocumentLoader {
  const base = remoteFetchOptions(allowLoopback);
  return async (url: string): Promise<RemoteDocument> => {
    if (PRELOADED_CONTEXTS.has(url)) return preloaded(url);
    try {
      let options = base;
      if (identity) {
        // A fetch on someone's behalf (servers that want signed GETs): the same fence, with
        // the signature headers Fedify makes for the request.
        const signed = await signRequest(
          new Request(url, {
            headers: { Accept: base.accept, "User-Agent": FEDERATION_USER_AGENT },
          }),
          identity.privateKey,
          identity.keyId,
        );
        const headers: Record<string, string> = {};
        for (const [name, value] of signed.headers) {
          if (name !== "accept" && name !== "user-agent") headers[name] = value;
        }
        options = { ...base, headers };
      }
      const fetched = await safeFetch(url, options);
      return {
        contextUrl: null,
        documentUrl: fetched.url,
        document: JSON.parse(fetched.body.toString("utf8")) as unknown,
      };
    } catch (error) {
      if (error instanceof FetchRefused || error instanceof Error) {
        throw new FetchError(url, `${url}: ${error.message}`);
      }
      throw error;
    }
  };
}

/** The loader with Fedify's cache of remote documents in our key–value store. */
export function createCachedDocumentLoader(kv: KvStore, allowLoopback: boolean): DocumentLoader {
  return kvCache({
    loader: createDocumentLoader(allowLoopback),
    kv,
    prefix: ["_fedify", "remoteDocument"],
  });
}
