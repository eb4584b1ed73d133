import dayjs from 'dayjs';
import { Alert, Button } from 'antd';
import { ExportOutlined, HomeOutlined, SearchOutlined, SafetyCertificateOutlined } from '@ant-design/icons';
import { RESPONSIBLE_GAMING } from '../../brand';
import { LinkButton } from '../../components/LinkButton';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { LegalPageHeader } from './LegalPageHeader';
import { LegalSection, longDate } from './LegalSection';

const PRACTICES = [
  {
    title: 'Defina um orçamento',
    text: 'Decida antes quanto pode gastar por mês com entretenimento e não ultrapasse esse valor. Nunca use o dinheiro das contas da casa, da alimentação, do aluguel ou de dívidas.',
  },
  {
    title: 'Encare como diversão',
    text: 'Participar dos sorteios é entretenimento, não fonte de renda nem investimento. Conte sempre com a possibilidade de não ganhar.',
  },
  {
    title: 'Faça compras conscientes',
    text: 'Não tente recuperar o que gastou comprando mais. Cada tabela é independente: não ter ganhado antes não aumenta as suas chances agora.',
  },
  {
    title: 'Evite jogar sob estresse',
    text: 'Não participe quando estiver triste, ansioso, irritado, sob efeito de álcool ou quando quiser fugir de problemas. Nessas horas as decisões costumam sair do controle.',
  },
  {
    title: 'Faça pausas regulares',
    text: 'Reserve tempo para a família, os amigos, o trabalho e outras atividades de lazer. Se perceber que está pensando demais nos sorteios, faça uma pausa.',
  },
  {
    title: 'Procure ajuda',
    text: 'Se sentir que está perdendo o controle, converse com alguém de confiança e busque apoio profissional. Pedir ajuda é um sinal de cuidado, não de fraqueza.',
  },
];

const TIPS = [
  'Anote tudo o que gasta e revise o total no fim do mês.',
  'Não peça dinheiro emprestado nem use o cartão de crédito para participar.',
  'Não esconda da família ou dos amigos quanto tempo e dinheiro você dedica aos sorteios.',
  'Desative notificações e se afaste da plataforma se sentir vontade de comprar por impulso.',
  'Se o jogo deixou de ser diversão, pare. Você pode pedir a suspensão ou o encerramento da sua conta ao nosso atendimento a qualquer momento.',
];

const WARNING_SIGNS = [
  'gastar mais do que tinha planejado, com frequência;',
  'mentir ou esconder quanto gasta;',
  'sentir irritação ou ansiedade quando tenta parar;',
  'deixar de lado compromissos, trabalho ou pessoas próximas;',
  'pedir dinheiro emprestado para continuar participando.',
];

/** Responsible-gaming page (storefront spec §2). */
export default function ResponsibleGamingPage() {
  useDocumentTitle('Jogo Responsável');
  return (
    <article className="page page-legal">
      <LegalPageHeader
        title="Jogo Responsável"
        subtitle={`Atualizado em ${longDate(dayjs())}`}
        badge={
          <span className="badge-18 badge-18-lg" aria-label="Proibido para menores de 18 anos">
            18+
          </span>
        }
      />

      <div className="legal-body">
        <p className="legal-intro">
          Os sorteios da plataforma são uma forma de entretenimento e devem continuar sendo. Esta página reúne orientações para você
          participar com equilíbrio e indica onde buscar ajuda, se precisar. A participação é permitida somente a maiores de 18 anos.
        </p>

        <LegalSection title="Jogue com responsabilidade">
          <ul className="practice-list">
            {PRACTICES.map((p) => (
              <li key={p.title}>
                <strong>{p.title}.</strong> {p.text}
              </li>
            ))}
          </ul>
        </LegalSection>

        <LegalSection title="Dicas rápidas de autocontrole">
          <ul>
            {TIPS.map((t) => (
              <li key={t}>{t}</li>
            ))}
          </ul>
        </LegalSection>

        <LegalSection title="Sinais de alerta">
          <p>Fique atento se você, ou alguém próximo, passar a:</p>
          <ul>
            {WARNING_SIGNS.map((t) => (
              <li key={t}>{t}</li>
            ))}
          </ul>
          <p>Esses sinais indicam que é hora de parar e procurar ajuda.</p>
        </LegalSection>

        <LegalSection title="Onde buscar ajuda">
          <ul className="help-links">
            <li>
              <a href={RESPONSIBLE_GAMING.instituteUrl} target="_blank" rel="noopener noreferrer">
                <SafetyCertificateOutlined aria-hidden /> {RESPONSIBLE_GAMING.instituteName}
              </a>
              : informações e orientações sobre jogo responsável.
            </li>
            <li>
              <a href={RESPONSIBLE_GAMING.treatmentSearchUrl} target="_blank" rel="noopener noreferrer">
                <SearchOutlined aria-hidden /> Encontre grupos de apoio e tratamento perto de você
              </a>
              , como os grupos de Jogadores Anônimos.
            </li>
            <li>
              Os Centros de Atenção Psicossocial (CAPS) do SUS oferecem atendimento gratuito para quem sofre com o jogo compulsivo. Procure
              a unidade de saúde mais próxima.
            </li>
            <li>
              Para apoio emocional a qualquer hora, ligue gratuitamente para o CVV (Centro de Valorização da Vida) no número{' '}
              <a href="tel:188">188</a>.
            </li>
          </ul>
        </LegalSection>

        <Alert
          type="warning"
          showIcon
          className="notice"
          title="Aviso Importante"
          description="Proibido para menores de 18 anos. A participação nos sorteios não deve ser vista como forma de ganhar dinheiro, complementar a renda ou resolver problemas financeiros. Se você ou alguém próximo apresenta sinais de jogo compulsivo, procure ajuda especializada."
        />

        <div className="legal-actions">
          <LinkButton type="primary" icon={<HomeOutlined />} to="/">
            Ir para a plataforma
          </LinkButton>
          <Button
            className="btn-amber-outline"
            icon={<ExportOutlined />}
            href={RESPONSIBLE_GAMING.instituteUrl}
            target="_blank"
            rel="noopener noreferrer"
          >
            Visitar o instituto
          </Button>
        </div>
      </div>
    </article>
  );
}
