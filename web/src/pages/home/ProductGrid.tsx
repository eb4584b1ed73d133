import { AppstoreOutlined } from '@ant-design/icons';
import { Link } from 'react-router-dom';
import { EmptyList } from '../../components/EmptyList';
import { ProductCard, ProductCardSkeleton } from '../../components/product/ProductCard';
import { unitPriceCents } from '../../components/product/format';
import { usePurchaseLauncher } from '../purchase/PurchaseLauncher';
import { useHomeProducts } from './useHomeProducts';
import './product-grid.css';

/**
 * The storefront's product cards (storefront spec §2 Home): up to 12, 3 skeleton cards while
 * loading; the buy button starts the purchase flow, which resumes here after sign-in.
 */
export function ProductGrid() {
  const { products, loading, failed, retry } = useHomeProducts();
  const { buy, dialogs, preparingId } = usePurchaseLauncher({ returnTo: '/' });

  return (
    <section className="home-products" aria-labelledby="ebooks-title" id="ebooks">
      <div className="home-products-head">
        <h2 id="ebooks-title" className="section-title">
          E-books com sorteio aberto
        </h2>
        <Link to="/infoprodutos" className="home-products-all">
          <AppstoreOutlined aria-hidden /> Ver catálogo
        </Link>
      </div>

      {loading ? (
        <div className="product-grid" role="status" aria-live="polite" aria-label="Carregando e-books…">
          {[0, 1, 2].map((i) => (
            <ProductCardSkeleton key={i} />
          ))}
        </div>
      ) : products.length ? (
        <div className="product-grid">
          {products.map((p) => (
            <ProductCard key={p.id} product={p} buying={preparingId === p.id} onBuy={() => buy(p, unitPriceCents(p, p.draw))} />
          ))}
        </div>
      ) : (
        <EmptyList
          className="home-products-empty"
          failed={failed}
          onRetry={retry}
          failedText="Não foi possível carregar os e-books agora."
          emptyText="Nenhum e-book com sorteio aberto no momento. Volte mais tarde!"
        />
      )}
      {dialogs}
    </section>
  );
}
