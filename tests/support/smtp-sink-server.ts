// A local SMTP sink for the browser tests: SMTP on SMTP_SINK_PORT (default 2525), and an HTTP
// view of what arrived on SMTP_SINK_HTTP_PORT (default 2526): GET /messages, DELETE /messages;
// PUT /refuse with `{ "addresses": [...] }` makes it refuse mail to those recipients (450),
// DELETE /refuse accepts everything again. It also stands in for an SMS gateway (the app's
// SMS_WEBHOOK_URL): POST /sms stores `{ to, body }`, GET /sms lists them.
import { createServer } from "node:http";
import { startSmtpSink } from "./smtp-sink";

const sink = await startSmtpSink(Number(process.env.SMTP_SINK_PORT ?? 2525));
const texts: { to: string; body: string }[] = [];
const http = createServer((req, res) => {
  // One request per connection: the tests poll this server, and a kept-alive socket that the
  // server closes for idleness just as the client reuses it fails with ECONNRESET.
  res.setHeader("Connection", "close");
  if (req.url === "/sms" && req.method === "POST") {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      texts.push(JSON.parse(body) as { to: string; body: string });
      res.writeHead(202);
      res.end();
    });
    return;
  }
  if (req.url === "/sms" && req.method === "GET") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(texts));
    return;
  }
  if (req.url === "/messages" && req.method === "GET") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(sink.received));
    return;
  }
  if (req.url === "/messages" && req.method === "DELETE") {
    sink.received.length = 0;
    res.writeHead(204);
    res.end();
    return;
  }
  if (req.url === "/refuse" && req.method === "PUT") {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      try {
        const { addresses } = JSON.parse(body) as { addresses: string[] };
        const refused = new Set(addresses.map((a) => a.toLowerCase()));
        sink.setRefuse((recipient) => refused.has(recipient.toLowerCase()));
        res.writeHead(204);
      } catch {
        res.writeHead(400);
      }
      res.end();
    });
    return;
  }
  if (req.url === "/refuse" && req.method === "DELETE") {
    sink.setRefuse(() => false);
    res.writeHead(204);
    res.end();
    return;
  }
  if (req.url === "/healthz") {
    res.writeHead(200);
    res.end("ok");
    return;
  }
  res.writeHead(404);
  res.end();
});
http.listen(Number(process.env.SMTP_SINK_HTTP_PORT ?? 2526), "127.0.0.1");
process.on("SIGTERM", () => {
  void sink.close().then(() => process.exit(0));
});
