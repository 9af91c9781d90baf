import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { headLinks, rewriteHeadLink } from "./head-links.server";

async function through(chunks: string[]): Promise<string> {
  const out = Readable.from(chunks.map((c) => Buffer.from(c))).pipe(headLinks());
  let text = "";
  for await (const chunk of out) text += chunk.toString();
  return text;
}

describe("the document head's links", () => {
  it("puts module preloads at low priority and drops nonces from links", () => {
    expect(rewriteHeadLink('<link rel="modulepreload" href="/assets/a.js" nonce="abc=="/>')).toBe(
      '<link rel="modulepreload" fetchpriority="low" href="/assets/a.js"/>',
    );
    expect(rewriteHeadLink('<link nonce="abc==" rel="stylesheet" href="/assets/a.css"/>')).toBe(
      '<link rel="stylesheet" href="/assets/a.css"/>',
    );
  });

  it("rewrites the head only, across chunk boundaries, and keeps every byte after it", async () => {
    const body =
      '<body><script nonce="n">x</script><link rel="modulepreload" href="/b.js" nonce="n"/>é</body></html>';
    const html = await through([
      '<!DOCTYPE html><html><head><link rel="module',
      'preload" href="/a.js" nonce="n"/><script nonce="n">1</script></he',
      `ad>${body.slice(0, 20)}`,
      body.slice(20),
    ]);
    expect(html).toBe(
      `<!DOCTYPE html><html><head><link rel="modulepreload" fetchpriority="low" href="/a.js"/><script nonce="n">1</script></head>${body}`,
    );
  });

  it("passes a document without a head through unchanged", async () => {
    expect(await through(["<p>", "no head</p>"])).toBe("<p>no head</p>");
  });
});
