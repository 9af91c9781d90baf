import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  afterFirstPaint,
  compactManifest,
  headLinks,
  rewriteHeadLink,
  singleQuoted,
} from "./head-links.server";

async function through(chunks: string[]): Promise<string> {
  const out = Readable.from(chunks.map((c) => Buffer.from(c))).pipe(headLinks());
  let text = "";
  for await (const chunk of out) text += chunk.toString();
  return text;
}

describe("the document head's links", () => {
  it("takes module preloads out of the head and drops nonces from links", () => {
    const preloads: string[] = [];
    expect(
      rewriteHeadLink(
        '<link rel="modulepreload" href="/assets/a.js?v=1&amp;x" nonce="abc=="/>',
        preloads,
      ),
    ).toBe("");
    expect(
      rewriteHeadLink('<link nonce="abc==" rel="stylesheet" href="/assets/a.css"/>', preloads),
    ).toBe('<link rel="stylesheet" href="/assets/a.css"/>');
    expect(preloads).toEqual(["/assets/a.js?v=1&x"]);
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
    expect(html).toBe(`<!DOCTYPE html><html><head><script nonce="n">1</script></head>${body}`);
  });

  it("loads React Router's modules after the first paint, the preloads first, in the same order", async () => {
    const script =
      ';\nimport * as route0 from "/assets/root.js";\nimport * as route1 from "/assets/feed.js";\n  window.__reactRouterManifest = {"a":1};\n  window.__reactRouterRouteModules = {"root":route0,"feed":route1};\n\nimport("/assets/entry.js");';
    const document = `<html><head><link rel="modulepreload" href="/assets/entry.js" nonce="n"/><link rel="modulepreload" href="/assets/root.js" nonce="n"/></head><body><p>é</p><script nonce="n" type="module" async="">${script}</script></body></html>`;
    const expected =
      '<html><head></head><body><p>é</p><script nonce="n" type="module" async="">\nif (document.visibilityState !== "hidden") await new Promise((go) => requestAnimationFrame(() => setTimeout(go)));' +
      '\nfor (const href of ["/assets/entry.js","/assets/root.js"]) document.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href }));' +
      ';\nconst route0 = await import("/assets/root.js");\nconst route1 = await import("/assets/feed.js");\n  window.__reactRouterManifest = {"a":1};\n  window.__reactRouterRouteModules = {"root":route0,"feed":route1};\n\nimport("/assets/entry.js");</script></body></html>';
    for (let at = 1; at < document.length; at += 7) {
      expect(await through([document.slice(0, at), document.slice(at)])).toBe(expected);
    }
    expect(await through([...document])).toBe(expected);
  });

  it("runs the rewritten module script as the original would: the same modules, in order", async () => {
    const loaded: string[] = [];
    const load = async (url: string) => {
      loaded.push(url);
      return { url };
    };
    const script = afterFirstPaint(
      ';\nimport * as route0 from "/r0.js";\nimport "/manifest.js";\nimport * as route1 from "/r1.js";\n',
      ["/a.js", "</script>"],
    );
    expect(script).not.toContain("</script>");
    const appended: { rel: string; href: string }[] = [];
    const page = {
      visibilityState: "visible",
      head: { append: (link: { rel: string; href: string }) => appended.push(link) },
      createElement: () => ({}),
    };
    let frames = 0;
    const run = new Function(
      "document",
      "requestAnimationFrame",
      "setTimeout",
      "__import",
      `return (async () => {${script.replaceAll("import(", "__import(")}\nreturn [route0, route1];})();`,
    );
    const routes = await run(
      page,
      (callback: () => void) => {
        frames++;
        callback();
      },
      (callback: () => void) => callback(),
      load,
    );
    expect(frames).toBe(1);
    expect(appended.map((link) => [link.rel, link.href])).toEqual([
      ["modulepreload", "/a.js"],
      ["modulepreload", "</script>"],
    ]);
    expect(loaded).toEqual(["/r0.js", "/manifest.js", "/r1.js"]);
    expect(routes).toEqual([{ url: "/r0.js" }, { url: "/r1.js" }]);
    // A hidden tab draws no frame: it does not wait for one.
    frames = 0;
    await run(
      { ...page, visibilityState: "hidden" },
      () => frames++,
      () => {},
      load,
    );
    expect(frames).toBe(0);
    // A shape it does not know is left as it was.
    const odd = ';\nimport { a } from "/x.js";\n';
    expect(afterFirstPaint(odd, [])).toBe(odd);
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
