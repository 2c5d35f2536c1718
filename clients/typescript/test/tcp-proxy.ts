/**
 * A loopback TCP proxy in front of the server, to drop connections the way a
 * network does: every connection at once, or each at the server's next answer.
 */

import { type AddressInfo, type Server, type Socket, createConnection, createServer } from "node:net";

export class TcpProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private dropAtNextResponse = false;
  /** How many times the proxy dropped the connections. */
  drops = 0;

  private constructor(private readonly server: Server, readonly url: string) {}

  /** A proxy to `target` (`host:port`) on a free loopback port. */
  static async start(targetUrl: string): Promise<TcpProxy> {
    const target = new URL(targetUrl);
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => {
      const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
      const pair: [Socket, Socket] = [client, upstream];
      proxy?.pairs.add(pair);
      const close = (): void => {
        proxy?.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on("data", (chunk: Buffer) => upstream.write(chunk));
      upstream.on("data", (chunk: Buffer) => {
        if (proxy?.dropAtNextResponse) {
          proxy.dropAtNextResponse = false;
          proxy.dropAll();
          return;
        }
        client.write(chunk);
      });
      for (const socket of pair) {
        socket.on("error", close);
        socket.on("close", close);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    proxy = new TcpProxy(server, `http://127.0.0.1:${port}`);
    return proxy;
  }

  /** Drops every connection now (clients may connect again). */
  dropAll(): void {
    this.drops += 1;
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  /** Drops the connections when the server next sends anything, instead of passing it on. */
  dropAtNextServerBytes(): void {
    this.dropAtNextResponse = true;
  }

  async stop(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
