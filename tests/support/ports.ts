import { createServer } from "node:net";

/** `count` distinct free ports on 127.0.0.1 (all held open while choosing, so none is handed out twice). */
export async function freePorts(count: number): Promise<number[]> {
  const probes = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    probes.map(
      (probe) =>
        new Promise<number>((resolve, reject) => {
          probe.once("error", reject);
          probe.listen(0, "127.0.0.1", () => {
            const address = probe.address();
            resolve(typeof address === "object" && address ? address.port : 0);
          });
        }),
    ),
  );
  await Promise.all(probes.map((probe) => new Promise((r) => probe.close(r))));
  return ports;
}

/** A free port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error("no free port");
  return port;
}
