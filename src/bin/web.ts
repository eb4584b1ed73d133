import { createServer } from 'node:http';
import { createServices } from '../services';
import { createApp } from '../http';
import { ConfigError } from '../platform/config';

/** The web process (Procfile `web`). */
async function main() {
  const services = createServices();
  const app = createApp(services);
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.listen(services.config.port, services.config.host, () => {
    services.logger.info({ port: services.config.port }, 'web listening');
  });
  let closing = false;
  const shutdown = (sig: string) => {
    if (closing) return;
    closing = true;
    services.logger.info({ sig }, 'web shutting down');
    server.close(() => void services.close().then(() => process.exit(0)));
    services.live.closeAll(); // open event streams would hold server.close (clients reconnect elsewhere)
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
