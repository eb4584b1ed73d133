import { QuestionCircleOutlined, UserAddOutlined, UserOutlined } from '@ant-design/icons';
import { useAuth } from '../../auth/AuthContext';
import { PlainButton, PlainLinkButton } from '../../components/plain/Button';
import { HeroIllustration } from './HeroIllustration';

/**
 * The explanation under the home page's title: what a purchase gives, and the sign-up / "Como
 * funciona" buttons. Rendered twice by the home page, one shown by width (CSS, no window reads
 * during render): inside the hero from 768 px, after the product cards on a phone, where the
 * first screen is for the first e-book's price, prize and "Comprar e-book" (issue 26). The copy
 * not shown is display:none, out of the accessibility tree and of the tab order.
 */
export function HeroMore({ className }: { className: string }) {
  const { isAuthenticated, loading } = useAuth();
  const scrollToHowItWorks = () => document.getElementById('como-funciona')?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  return (
    <div className={`hero-more ${className}`}>
      <p className="hero-lead">
        Cada e-book comprado dá direito a escolher 1 número entre 100 (de 00 a 99). Quando todos os números são vendidos, a tabela fecha e o
        resultado sai pela Lotomania. Pagamento rápido e seguro via PIX.
      </p>
      <div className="hero-actions">
        {!loading && !isAuthenticated && (
          <PlainLinkButton type="primary" size="large" icon={<UserAddOutlined />} to="/cadastro">
            Criar conta grátis
          </PlainLinkButton>
        )}
        {!loading && isAuthenticated && (
          <PlainLinkButton type="primary" size="large" icon={<UserOutlined />} to="/conta">
            Área do cliente
          </PlainLinkButton>
        )}
        <PlainButton size="large" className="btn-amber-outline" icon={<QuestionCircleOutlined />} onClick={scrollToHowItWorks}>
          Como funciona
        </PlainButton>
      </div>
    </div>
  );
}

export function Hero() {
  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="hero-copy">
        <span className="hero-kicker">E-books Lotomania · Sorteios numerados</span>
        <h1 id="hero-title" className="hero-title">
          Leve um e-book e escolha o seu <span className="text-amber">número da sorte</span>
        </h1>
        <HeroMore className="hero-more--wide" />
      </div>
      <div className="hero-visual">
        <HeroIllustration />
      </div>
    </section>
  );
}
