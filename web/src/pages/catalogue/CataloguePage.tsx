import { Col, Row } from 'antd';
import { EmptyList } from '../../components/EmptyList';
import { coverSrc } from '../../components/product/format';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { CatalogueCard, CatalogueCardSkeleton } from './CatalogueCard';
import { useCatalogue } from './useCatalogue';
import './catalogue.css';

/** 1 column on extra small screens, 2 on small, 3 on medium and up (storefront spec §2, §9). */
const COLS = { xs: 24, sm: 12, md: 8 } as const;

/** Public catalogue grouped by category (storefront spec §2 "Catalogue"). */
export default function CataloguePage() {
  useDocumentTitle('Infoprodutos');
  const { sections, loading, failed, retry } = useCatalogue();

  return (
    <div className="page catalogue">
      <h1 className="catalogue-title">INFOPRODUTOS • SORTEIOS</h1>
      <p className="catalogue-lead muted">
        Escolha um e-book: cada unidade comprada dá direito a 1 número na tabela de 100 números do sorteio.
      </p>

      {loading ? (
        <div role="status" aria-live="polite" aria-label="Carregando catálogo…">
          {[0, 1].map((s) => (
            <section key={s} className="catalogue-section" aria-hidden>
              <div className="catalogue-section-head">
                <span className="catalogue-section-logo-skeleton" />
                <span className="catalogue-section-name-skeleton" />
              </div>
              <Row gutter={[16, 16]}>
                {[0, 1, 2].map((i) => (
                  <Col key={i} {...COLS}>
                    <CatalogueCardSkeleton />
                  </Col>
                ))}
              </Row>
            </section>
          ))}
        </div>
      ) : sections.length ? (
        sections.map((section, si) => {
          const name = section.name?.trim() || 'Categoria';
          const logo = coverSrc(section.logo_url);
          const headingId = `categoria-${si}`;
          return (
            <section key={section.slug || si} className="catalogue-section" aria-labelledby={headingId}>
              <div className="catalogue-section-head">
                {logo && <img className="catalogue-section-logo" src={logo} alt="" width={40} height={40} />}
                <h2 id={headingId}>{name}</h2>
              </div>
              <Row gutter={[16, 16]}>
                {section.items.map((item, i) => (
                  <Col key={item.product.id ?? i} {...COLS}>
                    <CatalogueCard product={item.product} draw={item.draw ?? item.product.draw ?? null} categoryName={name} />
                  </Col>
                ))}
              </Row>
            </section>
          );
        })
      ) : (
        <EmptyList
          className="catalogue-empty"
          failed={failed}
          onRetry={retry}
          failedText="Não foi possível carregar o catálogo agora."
          emptyText="Nenhum e-book com sorteio aberto no momento."
        />
      )}
    </div>
  );
}
