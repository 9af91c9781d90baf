import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { compactManifest, headLinks, rewriteHeadLink, singleQuoted } from "./head-links.server";

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

  it("writes React Router's inline manifest without indentation, across chunk boundaries", async () => {
    const manifest = {
      entry: { module: "/a.js", imports: ["/b.js"] },
      routes: { root: { id: "root", path: "" } },
    };
    const pretty = JSON.stringify(manifest, null, 2);
    const script = `<script type="module">import * as route0 from "/r.js";\n  window.__reactRouterManifest = ${pretty};\n  window.__reactRouterRouteModules = {"root":route0};</script>`;
    const document = `<html><head></head><body><p>é</p>${script}<script>window.__reactRouterManifest = {"x": 1}</script></body></html>`;
    const expected = document.replace(pretty, JSON.stringify(manifest));
    // Every split point: the markers and the JSON may straddle chunks anywhere.
    for (let at = 1; at < document.length; at += 7) {
      expect(await through([document.slice(0, at), document.slice(at)])).toBe(expected);
    }
    expect(await through([...document])).toBe(expected);
  });

  it("leaves a manifest it cannot parse, and a document without one, as they were", async () => {
    expect(compactManifest('{ "a": [1, 2] }')).toBe('{"a":[1,2]}');
    expect(compactManifest("{ a: 1 }")).toBe("{ a: 1 }");
    const unterminated = '<head></head><script>window.__reactRouterManifest = {\n  "a": 1';
    expect(await through([unterminated.slice(0, 30), unterminated.slice(30)])).toBe(unterminated);
  });

  it("writes the hydration data's string literals single-quoted: the same string, fewer bytes", () => {
    const awkward = `[{"_1":"it's <b>&</b> \\ \u2028 \n \u0001 é 🎵 \ud800 end"}]`;
    // As React Router writes it: JSON.stringify, then <, >, &, U+2028 and U+2029 escaped.
    const literal = JSON.stringify(awkward)
      .replace(/</g, "\\u003c")
      .replace(/>/g, "\\u003e")
      .replace(/&/g, "\\u0026")
      .replace(/\u2028/g, "\\u2028");
    const quoted = singleQuoted(literal);
    expect(quoted.startsWith("'")).toBe(true);
    for (const raw of ["<", ">", "&", "\u2028", "\n", "\u0001", "\ud800", '\\"']) {
      expect(quoted).not.toContain(raw);
    }
    const data = JSON.stringify([{ id: "a", title: "b" }]);
    expect(singleQuoted(JSON.stringify(data))).toBe(`'${data}'`);
    // biome-ignore lint/security/noGlobalEval: evaluates the literal as the browser will
    expect(eval(quoted)).toBe(awkward);
    expect(singleQuoted("not a literal")).toBe("not a literal");
    expect(singleQuoted("[1]")).toBe("[1]");
  });

  it("rewrites every piece of hydration data, across chunk boundaries", async () => {
    const piece = (data: string) =>
      `<script nonce="n">window.__reactRouterContext.streamController.enqueue(${JSON.stringify(data)});</script>`;
    const document = `<html><head></head><body><p>"quoted"</p>${piece('[{"a":"b"}]')}${piece('[["x\'y"]]')}</body></html>`;
    const expected = `<html><head></head><body><p>"quoted"</p><script nonce="n">window.__reactRouterContext.streamController.enqueue('[{"a":"b"}]');</script><script nonce="n">window.__reactRouterContext.streamController.enqueue('[["x\\'y"]]');</script></body></html>`;
    for (let at = 1; at < document.length; at += 5) {
      expect(await through([document.slice(0, at), document.slice(at)])).toBe(expected);
    }
    expect(await through([...document])).toBe(expected);
  });

  it("holds nothing back after the head but what could begin a rewritten part", async () => {
    const transform = headLinks();
    const written: string[] = [];
    transform.on("data", (chunk: Buffer) => written.push(chunk.toString()));
    const write = (text: string) =>
      new Promise<void>((resolve) => transform.write(Buffer.from(text), () => resolve()));
    await write("<html><head></head><body><p>shell</p><script>x()</script>");
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.join("")).toBe("<html><head></head><body><p>shell</p><script>x()</script>");
    await write("<p>later</p><script>window.__reactRouterCon");
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.join("")).toMatch(/<p>later<\/p><script>$/);
    transform.end();
  });
});
