import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import dayjs from 'dayjs';
import 'dayjs/locale/pt-br';
import { Root } from './App';
import { hydrationChunks, router } from './router';
import { dropSeeds, embeddedSeeds, hydration, SeedContext } from './ssr/seeds';
import './styles.css';

dayjs.locale('pt-br');

const container = document.getElementById('root')!;
// A public page the server rendered (src/ssr) carries the reads it was rendered from: the app
// hydrates that HTML from the same data; any other page (or WEB_SSR=off) is rendered here.
const seeds = embeddedSeeds();
if (seeds && container.firstElementChild) {
  hydration.active = true;
  // The reads describe the first screen only: the first navigation forgets them.
  const stop = router.subscribe(() => {
    dropSeeds(seeds);
    hydration.active = false;
    stop();
  });
  // The page's own chunks first (router.tsx, hydrationChunks): the server's HTML stays on screen meanwhile.
  void Promise.all(hydrationChunks(window.location.pathname))
    .catch(() => undefined)
    .then(() =>
      hydrateRoot(
        container,
        <StrictMode>
          <SeedContext.Provider value={seeds}>
            <Root />
          </SeedContext.Provider>
        </StrictMode>,
      ),
    );
} else {
  createRoot(container).render(
    <StrictMode>
      <Root />
    </StrictMode>,
  );
}
