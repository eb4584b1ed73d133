import { MailOutlined, PhoneOutlined, WhatsAppOutlined } from '@ant-design/icons';
import { Link } from 'react-router-dom';
import { BRAND, telHref } from '../brand';
import { LogoMark } from './Logo';

/** Footer (storefront spec §1, §2): regulatory text, legal links, support lines, community group. */
export function Footer() {
  const year = new Date().getFullYear();
  return (
    <footer className="footer">
      <div className="footer-inner">
        <div className="footer-grid">
          <section className="footer-brand" aria-label="Sobre">
            <div className="footer-logo">
              <LogoMark size={28} />
              <strong>{BRAND.name}</strong>
            </div>
            <p>E-books da categoria Lotomania. Cada e-book comprado dá direito a escolher 1 número na tabela de 100 números do sorteio.</p>
            <span className="badge-18" aria-label="Proibido para menores de 18 anos">
              18+
            </span>
          </section>

          <nav className="footer-col" aria-label="Documentos">
            <h2>Documentos</h2>
            <ul>
              <li>
                <Link to="/termos">Termos de Uso</Link>
              </li>
              <li>
                <Link to="/privacidade">Política de Privacidade</Link>
              </li>
              <li>
                <Link to="/jogo-responsavel">Jogo Responsável</Link>
              </li>
            </ul>
          </nav>

          <section className="footer-col" aria-label="Atendimento">
            <h2>Atendimento</h2>
            <ul>
              {BRAND.supportPhones.map((p) => (
                <li key={p}>
                  <a href={telHref(p)}>
                    <PhoneOutlined aria-hidden /> {p}
                  </a>
                </li>
              ))}
              <li>
                <a href={`mailto:${BRAND.supportEmail}`}>
                  <MailOutlined aria-hidden /> {BRAND.supportEmail}
                </a>
              </li>
              <li>
                <a href={BRAND.communityGroupUrl} target="_blank" rel="noopener noreferrer">
                  <WhatsAppOutlined aria-hidden /> Grupo da comunidade
                </a>
              </li>
            </ul>
          </section>
        </div>

        <p className="footer-legal">
          Título de capitalização da modalidade Incentivo, emitido pela {BRAND.issuerName}, autorizada a operar e fiscalizada pela
          Superintendência de Seguros Privados (SUSEP), com condições gerais e nota técnica aprovadas pela SUSEP (processo SUSEP informado
          no regulamento). A aprovação do plano pela SUSEP não implica, por parte da autarquia, incentivo ou recomendação à sua aquisição.
          Ao adquirir um e-book, o subscritor cede o direito de resgate do título à promotora {BRAND.companyName}, que o utiliza para a
          distribuição dos prêmios. O sorteio usa o primeiro concurso da Lotomania realizado após o fechamento da tabela; os prêmios são
          informados já líquidos de 25% de Imposto de Renda. Venda proibida para menores de 18 anos.
        </p>

        <p className="footer-copy">
          © {year} {BRAND.companyName} · CNPJ {BRAND.companyCnpj} · {BRAND.companyCity}
        </p>
      </div>
    </footer>
  );
}
