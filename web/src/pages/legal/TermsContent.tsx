import dayjs from 'dayjs';
import { Link } from 'react-router-dom';
import { MIN_AGE } from '../../../../src/shared/validation';
import { BRAND } from '../../brand';
import { LegalSection, longDate } from './LegalSection';

/**
 * Full text of the Terms of Use (storefront spec §2 Terms, §5, §9). Shown on /termos and in the
 * registration dialog. `inDialog` replaces internal links (which would close the form) with text.
 */
export function TermsContent({ inDialog = false }: { inDialog?: boolean }) {
  const privacy = inDialog ? <strong>Política de Privacidade</strong> : <Link to="/privacidade">Política de Privacidade</Link>;
  const responsible = inDialog ? <strong>Jogo Responsável</strong> : <Link to="/jogo-responsavel">Jogo Responsável</Link>;
  return (
    <div className="legal-body">
      <p className="legal-intro">
        Estes Termos de Uso regulam o acesso e o uso da plataforma {BRAND.name}, operada por {BRAND.companyName}, inscrita no CNPJ sob o nº{' '}
        {BRAND.companyCnpj} (“Promotora”). Leia-os com atenção antes de criar sua conta ou de adquirir qualquer e-book.
      </p>

      <LegalSection n={1} title="Aceitação dos termos">
        <p>
          Ao criar uma conta, acessar a plataforma ou adquirir qualquer produto, você (“Usuário” ou “Subscritor”) declara que leu,
          compreendeu e aceita integralmente estes Termos de Uso e a {privacy}. Se não concordar com qualquer condição, não utilize a
          plataforma.
        </p>
        <p>
          O aceite é registrado eletronicamente no momento do cadastro e vale para todas as compras e participações feitas com a sua conta.
        </p>
      </LegalSection>

      <LegalSection n={2} title="Objeto">
        <p>
          A plataforma comercializa produtos digitais (e-books, também chamados de infoprodutos) da categoria Lotomania. Cada e-book
          adquirido dá ao comprador o direito de escolher 1 (um) número em uma tabela de 100 (cem) números, de 00 a 99, para participar de
          um sorteio promocional.
        </p>
        <p>
          A participação nos sorteios está vinculada a título de capitalização da modalidade Incentivo, emitido por {BRAND.issuerName}{' '}
          autorizada e fiscalizada pela Superintendência de Seguros Privados (SUSEP), com condições gerais e nota técnica aprovadas pela
          SUSEP (processo SUSEP informado no regulamento). A plataforma não é casa de apostas nem loteria, e a compra do e-book não
          constitui aposta.
        </p>
      </LegalSection>

      <LegalSection n={3} title="Aquisição e cessão de direitos">
        <p>
          O preço de cada e-book e o valor do prêmio de cada sorteio são informados antes da compra. O pagamento é feito via PIX e a compra
          só é confirmada depois que o pagamento é aprovado. Os números escolhidos ficam vinculados à conta e ao CPF do titular e não podem
          ser transferidos a terceiros.
        </p>
        <p>
          Ao adquirir o e-book, o Subscritor cede à Promotora, de forma gratuita, o direito de resgate do título de capitalização vinculado
          à compra, mantendo o direito de participar dos sorteios nas condições destes Termos.
        </p>
        <p>
          O e-book é licenciado para uso pessoal, não exclusivo e intransferível. É proibido reproduzir, revender, distribuir ou
          disponibilizar o seu conteúdo, no todo ou em parte, sem autorização por escrito da Promotora.
        </p>
        <p>
          Pedidos de cancelamento e reembolso, inclusive no exercício do direito de arrependimento previsto no Código de Defesa do
          Consumidor, devem ser feitos pelos canais de atendimento e serão analisados conforme a legislação.
        </p>
      </LegalSection>

      <LegalSection n={4} title="Direito de imagem do ganhador">
        <p>
          O ganhador autoriza a Promotora e a sociedade de capitalização parceira a usar, gratuitamente, o seu nome, imagem e voz na
          divulgação do resultado do sorteio, em qualquer meio de comunicação, pelo prazo de até 1 (um) ano contado da data do sorteio. Essa
          autorização não inclui a divulgação de documentos, endereço ou dados bancários, e não gera qualquer obrigação de pagamento ao
          ganhador.
        </p>
      </LegalSection>

      <LegalSection n={5} title="Sorteios e prêmios">
        <ul>
          <li>Cada tabela tem 100 números. A tabela fecha quando todos os seus números são vendidos.</li>
          <li>
            O sorteio usa o primeiro concurso da Lotomania, da Caixa Econômica Federal, realizado após o fechamento da tabela. A data
            prevista informada na plataforma é apenas uma estimativa.
          </li>
          <li>
            A Lotomania sorteia 20 números. O ganhador é o comprador do último número sorteado, na ordem de extração divulgada pela Caixa.
            Se esse número não tiver comprador na tabela, vale o número sorteado imediatamente anterior que tenha comprador, e assim
            sucessivamente.
          </li>
          <li>
            Os valores dos prêmios são informados já líquidos, com o desconto de 25% (vinte e cinco por cento) de Imposto de Renda,
            recolhido na forma da legislação.
          </li>
          <li>
            O prêmio é pago em até 90 (noventa) dias após o sorteio. O ganhador tem 90 (noventa) dias, contados do sorteio, para reclamar o
            prêmio; depois desse prazo o direito caduca.
          </li>
          <li>
            O prêmio é pago somente em moeda corrente nacional, preferencialmente por PIX ou transferência bancária, para conta de
            titularidade do próprio ganhador. Para receber, o ganhador deve confirmar seus dados e apresentar documento de identificação com
            foto.
          </li>
          <li>O resultado de cada sorteio é divulgado na plataforma e na área do cliente do ganhador.</li>
        </ul>
      </LegalSection>

      <LegalSection n={6} title="Regras de participação">
        <ul>
          <li>
            Podem participar somente pessoas físicas com {MIN_AGE} anos ou mais, residentes no Brasil e com CPF regular. A mesma idade
            mínima vale para criar uma conta e para comprar nesta plataforma, conforme a nossa política de {responsible}.
          </li>
          <li>É permitida uma única conta por CPF.</li>
          <li>
            Não podem participar: diretores, administradores e executivos da sociedade de capitalização e da Promotora; seus parentes até o
            2º grau, cônjuges e companheiros; e pessoas politicamente expostas, conforme a regulamentação vigente.
          </li>
          <li>Informações falsas, incompletas ou de terceiros levam à exclusão automática do participante, sem direito a prêmio.</li>
          <li>
            Tentativas de invasão (hacking), uso de robôs (bots), scripts ou qualquer meio automatizado ou fraudulento levam à exclusão do
            participante, sem prejuízo da sua responsabilização civil e criminal.
          </li>
        </ul>
      </LegalSection>

      <LegalSection n={7} title="Deveres da plataforma">
        <ul>
          <li>Manter a plataforma disponível e segura, ressalvadas as interrupções para manutenção e os casos fortuitos.</li>
          <li>Realizar os sorteios com transparência, informando o concurso da Lotomania utilizado e o resultado.</li>
          <li>Pagar os prêmios nos prazos e formas previstos nestes Termos.</li>
          <li>Tratar os dados pessoais conforme a Lei Geral de Proteção de Dados (LGPD) e a {privacy}.</li>
          <li>Prestar atendimento pelos canais informados no rodapé da plataforma.</li>
        </ul>
      </LegalSection>

      <LegalSection n={8} title="Deveres do usuário">
        <ul>
          <li>Fornecer dados verdadeiros, completos e atualizados, e mantê-los corretos na sua conta.</li>
          <li>Manter a sua senha em sigilo; você responde pelas operações feitas com a sua conta.</li>
          <li>Não usar a plataforma para fins ilícitos nem violar os direitos autorais dos e-books.</li>
          <li>Participar com responsabilidade, dentro do seu orçamento.</li>
          <li>Comunicar imediatamente ao atendimento qualquer uso não autorizado da sua conta.</li>
        </ul>
      </LegalSection>

      <LegalSection n={9} title="Alterações">
        <p>
          A Promotora pode alterar estes Termos a qualquer tempo. A versão vigente fica publicada nesta página, com a data da última
          atualização. As alterações não prejudicam os sorteios com tabelas já abertas, que seguem as regras vigentes no momento da compra.
          O uso da plataforma após a publicação da nova versão indica a sua concordância.
        </p>
      </LegalSection>

      <LegalSection n={10} title="Foro">
        <p>
          Estes Termos são regidos pelas leis da República Federativa do Brasil. Fica eleito o foro da {BRAND.jurisdiction} para resolver
          qualquer controvérsia decorrente destes Termos, ressalvado o direito do consumidor de propor ação no foro do seu domicílio.
        </p>
      </LegalSection>

      <footer className="legal-footer">
        <p>
          <strong>{BRAND.companyName}</strong> · CNPJ {BRAND.companyCnpj}
        </p>
        <p>{longDate(dayjs())}</p>
      </footer>
    </div>
  );
}
