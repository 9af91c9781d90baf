// A local SMTP sink for the browser tests: SMTP on SMTP_SINK_PORT (default 2525), and an HTTP
// view of what arrived on SMTP_SINK_HTTP_PORT (default 2526): GET /messages, DELETE /messages.
import { createServer } from "node:http";
import { startSmtpSink } from "./smtp-sink";

const sink = await startSmtpSink(Number(process.env.SMTP_SINK_PORT ?? 2525));
const http = createServer((req, res) => {
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
