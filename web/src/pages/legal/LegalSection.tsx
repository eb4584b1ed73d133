import type { ReactNode } from 'react';

export function LegalSection({ n, title, children }: { n?: number; title: string; children: ReactNode }) {
  const id = `secao-${n ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section className="legal-section" aria-labelledby={id}>
      <h2 id={id}>
        {n !== undefined && <span className="legal-n">{n}.</span>} {title}
      </h2>
      {children}
    </section>
  );
}

/** Today's date written out, e.g. "22 de novembro de 2025" (legal pages show the current date). */
export const longDate = (d: { format(f: string): string }) => d.format('D [de] MMMM [de] YYYY');
