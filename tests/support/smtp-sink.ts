import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  messageId: string | null;
}

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives. `refuse` decides, per
 * recipient, whether to reject the message (to simulate an outage for some mails).
 */
export async function startSmtpSink(port = 0) {
  const received: ReceivedMail[] = [];
  let refuse: (recipient: string) => boolean = () => false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse(address.address)) {
        callback(new Error("450 Mailbox temporarily unavailable"));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        raw += chunk;
      });
      stream.on("end", () => {
        const header = (name: string) =>
          raw.match(new RegExp(`^${name}: (.*)$`, "im"))?.[1]?.trim() ?? null;
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: header("Subject") ?? "",
          messageId: header("Message-ID"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.server.address() as AddressInfo;
  return {
    port: address.port,
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    setRefuse(fn: (recipient: string) => boolean) {
      refuse = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
