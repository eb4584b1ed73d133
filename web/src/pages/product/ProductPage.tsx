import { Alert, Button, Skeleton } from 'antd';
import { ArrowLeftOutlined, NumberOutlined, ReloadOutlined, ShoppingCartOutlined, WhatsAppOutlined } from '@ant-design/icons';
import { Link, useLocation, useParams } from 'react-router-dom';
import { BRAND } from '../../brand';
import { NumberGrid, NumberLegend } from '../../components/board/NumberGrid';
import { NotFoundResult } from '../../components/NotFoundResult';
import { DEFAULT_DESCRIPTION } from '../../components/product/ProductCard';
import { availability, coverSrc } from '../../components/product/format';
import { Availability, PrizeAndPrice, soldOf } from '../../components/product/ProductOffer';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useGoBack } from '../../components/useGoBack';
import { usePurchaseLauncher } from '../purchase/PurchaseLauncher';
import { useProductPage } from './useProductPage';
import './product-page.css';

/**
 * /comprar/:sku — one e-book (the catalogue's 'COMPRAR E-BOOK' leads here): cover, texts, prize,
 * ticket price, availability, the read-only board and the purchase flow of the home page.
 */
export default function ProductPage() {
  const { sku = '' } = useParams();
  const { pathname } = useLocation();
  const { state, retry } = useProductPage(sku);
  const { buy, dialogs, preparingId } = usePurchaseLauncher({ returnTo: pathname });
  const goBack = useGoBack('/infoprodutos');
  useDocumentTitle(state.kind === 'ready' ? state.product.title : state.kind === 'not_found' ? 'E-book não encontrado' : 'E-book');

  if (state.kind === 'not_found') {
    return (
      <NotFoundResult
        title="E-book não encontrado"
        subTitle="Este e-book não existe ou não está mais à venda."
        to="/infoprodutos"
        action="Ver o catálogo"
      />
    );
  }

  const back = (
    <Button type="text" icon={<ArrowLeftOutlined />} onClick={goBack} className="product-page-back">
      Voltar
    </Button>
  );

  if (state.kind === 'error') {
    return (
      <div className="page page-narrow">
        {back}
        <Alert
          type="error"
          showIcon
          role="alert"
          title={state.message}
          action={
            <Button icon={<ReloadOutlined />} onClick={retry}>
              Tentar de novo
            </Button>
          }
        />
      </div>
    );
  }

  if (state.kind === 'loading') {
    return (
      <div className="page product-page" role="status" aria-live="polite" aria-label="Carregando e-book…">
        {back}
        <div className="product-page-main">
          <Skeleton.Node active className="product-page-cover-skeleton" />
          <div className="product-page-info">
            <Skeleton active title={{ width: '80%' }} paragraph={{ rows: 5 }} />
            <Skeleton.Button active block size="large" />
            <Skeleton.Node active className="product-page-board-skeleton" />
          </div>
        </div>
      </div>
    );
  }

  const { product, draw, numbers, unitCents } = state;
  const cover = coverSrc(product.cover_url);
  const prize = draw?.prize_cents ?? product.prize_cents;
  const { total, available } = availability(product, draw);

  return (
    <div className="page product-page">
      {back}
      <div className="product-page-main">
        <div className="product-cover product-page-cover">
          {cover ? (
            <img src={cover} alt={`Capa do e-book ${product.title}`} width={600} height={800} />
          ) : (
            <span className="product-cover-empty product-page-cover-empty">Espaço para a arte do e-book</span>
          )}
        </div>

        <div className="product-page-info">
          {product.category_name && <p className="product-page-kicker">{product.category_name.toLocaleUpperCase('pt-BR')}</p>}
          <h1 className="product-page-title">{product.title || 'E-book'}</h1>
          {product.subtitle && <p className="product-page-subtitle">{product.subtitle}</p>}

          <div className="product-page-offer">
            <PrizeAndPrice prizeCents={prize} unitCents={unitCents} classPrefix="product-page" />
          </div>

          <p className="product-page-description">{product.description?.trim() || DEFAULT_DESCRIPTION}</p>

          <Availability
            available={available}
            total={total}
            sold={numbers.length ? soldOf(numbers) : undefined}
            className="product-page-availability"
          />

          <Button
            type="primary"
            size="large"
            block
            icon={<ShoppingCartOutlined />}
            loading={preparingId === product.id}
            onClick={() => buy(product, unitCents)}
          >
            Comprar e-book
          </Button>

          <div className="product-page-links">
            <Link to="/numeros" state={draw ? { drawId: draw.id, product: { id: product.id, sku: product.sku } } : undefined}>
              <NumberOutlined aria-hidden /> Já tem e-books? Escolha seus números
            </Link>
            <a href={BRAND.communityGroupUrl} target="_blank" rel="noopener noreferrer">
              <WhatsAppOutlined aria-hidden /> Grupo da comunidade
            </a>
          </div>
        </div>

        <section className="product-page-board" aria-labelledby="tabela-titulo">
          <h2 id="tabela-titulo">Tabela de números{draw ? ` · Sorteio #${draw.id}` : ''}</h2>
          <p className="muted">
            Cada e-book comprado dá direito a escolher 1 número. Depois do pagamento, você escolhe os seus números na tabela.
          </p>
          <NumberGrid numbers={numbers} totalNumbers={total} ariaLabel={`Tabela de números: ${product.title}`} />
          <NumberLegend />
        </section>
      </div>
      {dialogs}
    </div>
  );
}
