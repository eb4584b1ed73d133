import { Button, Typography } from 'antd';
import { QuestionCircleOutlined, UserAddOutlined, UserOutlined } from '@ant-design/icons';
import { useAuth } from '../../auth/AuthContext';
import { LinkButton } from '../../components/LinkButton';
import { HeroIllustration } from './HeroIllustration';

export function Hero() {
  const { isAuthenticated, loading } = useAuth();
  const scrollToHowItWorks = () =>
    document.getElementById('como-funciona')?.scrollIntoView({ behavior: 'smooth', block: 'start' });

  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="hero-copy">
        <span className="hero-kicker">E-books Lotomania · Sorteios numerados</span>
        <Typography.Title id="hero-title" level={1} className="hero-title">
          Leve um e-book e escolha o seu <span className="text-amber">número da sorte</span>
        </Typography.Title>
        <Typography.Paragraph className="hero-lead">
          Cada e-book comprado dá direito a escolher 1 número entre 100 (de 00 a 99). Quando todos os números são
          vendidos, a tabela fecha e o resultado sai pela Lotomania. Pagamento rápido e seguro via PIX.
        </Typography.Paragraph>
        <div className="hero-actions">
          {!loading && !isAuthenticated && (
            <LinkButton type="primary" size="large" icon={<UserAddOutlined />} to="/cadastro">
              Criar conta grátis
            </LinkButton>
          )}
          {!loading && isAuthenticated && (
            <LinkButton type="primary" size="large" icon={<UserOutlined />} to="/conta">
              Área do cliente
            </LinkButton>
          )}
          <Button size="large" className="btn-amber-outline" icon={<QuestionCircleOutlined />} onClick={scrollToHowItWorks}>
            Como funciona
          </Button>
        </div>
      </div>
      <div className="hero-visual">
        <HeroIllustration />
      </div>
    </section>
  );
}
