import net from 'node:net';

/**
 * A TCP proxy a test controls: forwards every connection on 127.0.0.1:port to the target. stop()
 * closes the listener and cuts every open connection (clients then see their sockets end, and new
 * connections are refused, as when the server behind it is down); start() listens again on the
 * same port. `hang()` keeps accepting connections but forwards nothing (a server that stopped
 * answering). `replyDelayMs` holds every byte coming back from the target that long (a slow
 * server that still answers everything, in order).
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private hanging = false;

  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
    readonly o: { replyDelayMs?: number } = {},
  ) {}

  get running() {
    return this.server !== null;
  }

  async start() {
    this.hanging = false;
    const server = net.createServer((client) => {
      this.track(client);
      if (this.hanging) return;
      const upstream = net.connect(this.target.port, this.target.host);
      this.track(upstream);
      const cut = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', cut).on('close', cut);
      upstream.on('error', cut).on('close', cut);
      client.pipe(upstream);
      const delay = this.o.replyDelayMs ?? 0;
      if (delay > 0) {
        // Same delay for every chunk: timers of one duration fire in order, so the bytes stay in order.
        upstream.on('data', (chunk) => setTimeout(() => !client.destroyed && client.write(chunk), delay).unref());
        upstream.on('end', () => setTimeout(() => client.end(), delay).unref());
      } else upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Accepts connections but forwards nothing from now on (open connections are cut). */
  hang() {
    this.hanging = true;
    for (const s of this.sockets) s.destroy();
  }

  async stop() {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track(s: net.Socket) {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
  }
}
