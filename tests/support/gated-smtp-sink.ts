import type { AddressInfo, Socket } from "node:net";
import { SMTPServer } from "smtp-server";
import type { ReceivedMail } from "./smtp-sink";

/**
 * Where the sink can stop a conversation and keep it waiting:
 * - `rcpt`: before answering RCPT TO — the sender has claimed the mail, no server has it yet;
 * - `data-end`: after the whole message, terminating dot included, arrived (it counts as
 *   received, as a real mail server would have queued it) but before answering it.
 */
export type HoldPhase = "rcpt" | "data-end";

/**
 * A real SMTP server on 127.0.0.1, like `startSmtpSink`, that can hold one conversation at a
 * chosen point — to kill the sender there, or to drop the connection — so that tests reach the
 * send → mark-sent window of the outbox on purpose instead of by luck. A message whose
 * connection closes before its terminating dot is never recorded (smtp-server destroys it).
 */
export async function startGatedSmtpSink(port = 0) {
  const received: ReceivedMail[] = [];
  const sockets = new Set<Socket>();
  let gate: { phase: HoldPhase; afterReceived: number; onHeld: () => void } | undefined;
  const held: ((error?: Error) => void)[] = [];

  /** Holds `callback` if the gate says so; true when held. */
  function hold(phase: HoldPhase, callback: (error?: Error) => void): boolean {
    if (!gate || gate.phase !== phase) return false;
    const expected = phase === "data-end" ? gate.afterReceived + 1 : gate.afterReceived;
    if (received.length < expected) return false;
    const { onHeld } = gate;
    gate = undefined;
    held.push(callback);
    onHeld();
    return true;
  }

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!hold("rcpt", callback)) callback();
    },
    onData(stream, session, callback) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        raw += chunk;
      });
      // The sender went away before the end of the message: nothing was received.
      stream.on("error", () => {});
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
        if (!hold("data-end", callback)) callback();
      });
    },
  });
  // A sender killed mid-conversation resets its connection: expected here, not a test failure
  // (without a listener the 'error' event would be thrown as an unhandled error).
  server.on("error", () => {});
  server.server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.server.address() as AddressInfo;
  return {
    port: address.port,
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    /**
     * Holds the next conversation that reaches `phase` once `afterReceived` messages were
     * received before it; resolves when it is held.
     */
    holdAt(phase: HoldPhase, afterReceived: number): Promise<void> {
      return new Promise<void>((resolve) => {
        gate = { phase, afterReceived, onHeld: resolve };
      });
    },
    /** Answers the held conversations (with `error`: refuses them). */
    release(error?: Error) {
      for (const callback of held.splice(0)) callback(error);
    },
    /** Cuts every open connection without an answer (a lost network, a crashed server). */
    dropConnections() {
      held.length = 0;
      for (const socket of sockets) socket.destroy();
    },
    /** How many times each Message-ID arrived. */
    countsByMessageId(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const mail of received) {
        const id = mail.messageId ?? "(none)";
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        gate = undefined;
        held.length = 0;
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export type GatedSmtpSink = Awaited<ReturnType<typeof startGatedSmtpSink>>;
