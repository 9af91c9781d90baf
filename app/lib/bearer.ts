/** True when the request authenticates with a bearer token (and so never with cookies). */
export function hasBearer(headers: Headers): boolean {
  return /^bearer\s/i.test(headers.get("authorization") ?? "");
}
