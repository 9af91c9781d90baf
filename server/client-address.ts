/**
 * The client's address: the socket's, or — only when TRUST_PROXY is on — the last hop the
 * proxy appended to X-Forwarded-For. Left-most entries are client-controlled and never used.
 */
export function clientAddress(
  socketAddress: string,
  forwardedFor: string | null,
  trustProxy: boolean,
): string {
  if (!trustProxy) return socketAddress;
  const hops = (forwardedFor ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return hops.at(-1) ?? socketAddress;
}
