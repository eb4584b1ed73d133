import { createServer } from 'node:http';
import { createServices } from '../services';
import { createApp } from '../http';
import { ConfigError, isProductionEnv, loadConfig } from '../platform/config';
import { announceWebUrl } from '../platform/web-url';

/** The web process (Procfile `web`). */
async function main() {
  // Without PUBLIC_URL (development), this process links to where it serves, never to an address
  // another web run announced earlier.
  const announce = !process.env.PUBLIC_URL && !isProductionEnv(process.env.NODE_ENV);
  const selfUrl = `http://${!process.env.HOST || ['0.0.0.0', '::'].includes(process.env.HOST) ? 'localhost' : process.env.HOST}:${process.env.PORT || 3000}`;
  const services = createServices(announce ? { config: loadConfig({ ...process.env, PUBLIC_URL: selfUrl }) } : {});
  const app = createApp(services);
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.on('error', (e: NodeJS.ErrnoException) => {
    // Said in Portuguese, without a stack trace: `npm start` shows it to whoever started the store.
    if (e.code === 'EADDRINUSE')
      console.error(
        `A porta ${services.config.port} já está em uso por outro programa: o site não pode escutar nela. Pare esse programa ou defina PORT com uma porta livre.`,
      );
    else if (e.code === 'EACCES')
      console.error(`Sem permissão para escutar na porta ${services.config.port}. Defina PORT com uma porta acima de 1024.`);
    else console.error(`O site não pôde escutar na porta ${services.config.port}: ${e.message}`);
    process.exit(1);
  });
  server.listen(services.config.port, services.config.host, () => {
    services.logger.info({ port: services.config.port }, 'web listening');
    // Without PUBLIC_URL (development), the CLI and the worker link to where this process serves.
    if (announce) announceWebUrl(selfUrl, services.config.databaseUrl);
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
