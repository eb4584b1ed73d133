import { BRAND } from '../../brand';
import { LegalSection } from './LegalSection';

/**
 * Full text of the Privacy Policy: nine LGPD sections, 5-year retention (account spec §9).
 * Shown on /privacidade and in the registration dialog.
 */
export function PrivacyContent() {
  return (
    <div className="legal-body">
      <p className="legal-intro">
        Esta Política de Privacidade explica como a {BRAND.name} coleta, usa, compartilha e protege os seus dados pessoais, de acordo com a
        Lei Geral de Proteção de Dados Pessoais (Lei nº 13.709/2018, “LGPD”).
      </p>

      <LegalSection n={1} title="Controlador e abrangência">
        <p>
          O controlador dos dados pessoais tratados na plataforma é {BRAND.companyName}, inscrita no CNPJ sob o nº {BRAND.companyCnpj}. Esta
          política vale para o site, a área do cliente e os canais de atendimento da {BRAND.name}. O encarregado pelo tratamento de dados
          pessoais pode ser contatado pelo e-mail <a href={`mailto:${BRAND.dpoEmail}`}>{BRAND.dpoEmail}</a>.
        </p>
      </LegalSection>

      <LegalSection n={2} title="Dados pessoais coletados">
        <ul>
          <li>
            <strong>Cadastro:</strong> nome completo, e-mail, celular com DDD, CPF, data de nascimento e senha. A senha é guardada apenas de
            forma cifrada e irreversível; ninguém da equipe tem acesso a ela.
          </li>
          <li>
            <strong>Compras e sorteios:</strong> e-books adquiridos, números escolhidos, reservas, pagamentos (valor, data, situação e
            identificadores da transação PIX) e prêmios recebidos. Não guardamos dados da sua conta bancária; dados de cartão, quando
            usados, são transformados em um código (token) pelo provedor de pagamento.
          </li>
          <li>
            <strong>Navegação:</strong> endereço IP, data e hora de acesso, tipo de dispositivo e navegador, e registros de uso necessários
            à segurança da plataforma.
          </li>
          <li>
            <strong>Atendimento:</strong> mensagens e informações que você nos envia ao falar com o suporte.
          </li>
        </ul>
      </LegalSection>

      <LegalSection n={3} title="Finalidades e bases legais">
        <ul>
          <li>
            <strong>Execução do contrato:</strong> criar e manter a sua conta, processar compras, registrar os números escolhidos, realizar
            os sorteios e pagar os prêmios.
          </li>
          <li>
            <strong>Cumprimento de obrigação legal ou regulatória:</strong> verificar a idade mínima, identificar o ganhador, recolher
            tributos, prevenir a lavagem de dinheiro e atender às exigências da SUSEP e de outras autoridades.
          </li>
          <li>
            <strong>Legítimo interesse:</strong> proteger a plataforma e os usuários contra fraudes, uso de robôs e acessos indevidos, e
            melhorar os nossos serviços.
          </li>
          <li>
            <strong>Consentimento:</strong> enviar comunicações promocionais, que você pode recusar ou cancelar a qualquer momento.
          </li>
        </ul>
      </LegalSection>

      <LegalSection n={4} title="Compartilhamento de dados">
        <p>Compartilhamos dados pessoais somente quando necessário e com:</p>
        <ul>
          <li>a sociedade de capitalização parceira, emissora dos títulos vinculados aos sorteios;</li>
          <li>instituições de pagamento, para processar os pagamentos via PIX e os pagamentos de prêmios;</li>
          <li>fornecedores de tecnologia (hospedagem, envio de e-mails e mensagens), sob dever de confidencialidade;</li>
          <li>autoridades públicas e judiciais, quando exigido por lei ou ordem judicial.</li>
        </ul>
        <p>
          Não vendemos dados pessoais. Nas tabelas públicas de números aparecem apenas as iniciais dos compradores, nunca nomes completos,
          e-mails ou CPFs. A divulgação do nome e da imagem do ganhador segue os Termos de Uso.
        </p>
      </LegalSection>

      <LegalSection n={5} title="Armazenamento e segurança">
        <p>
          Os dados são armazenados em servidores com controle de acesso, comunicação cifrada (HTTPS) e registro das operações
          administrativas. Apenas pessoas autorizadas, que precisam dos dados para o seu trabalho, têm acesso a eles. Se ocorrer um
          incidente de segurança que possa causar risco ou dano relevante, comunicaremos os titulares afetados e a Autoridade Nacional de
          Proteção de Dados (ANPD).
        </p>
      </LegalSection>

      <LegalSection n={6} title="Retenção e eliminação">
        <p>
          Mantemos os dados enquanto a sua conta estiver ativa e por até 5 (cinco) anos após o encerramento da conta ou da sua última
          participação, para cumprir obrigações legais e regulatórias e para exercer direitos em processos. Os registros de acesso são
          guardados pelo prazo mínimo exigido pelo Marco Civil da Internet. Encerrados esses prazos, os dados são eliminados ou
          anonimizados.
        </p>
      </LegalSection>

      <LegalSection n={7} title="Direitos do titular">
        <p>Nos termos do art. 18 da LGPD, você pode solicitar a qualquer momento:</p>
        <ul>
          <li>a confirmação de que tratamos os seus dados e o acesso a eles;</li>
          <li>a correção de dados incompletos, inexatos ou desatualizados;</li>
          <li>a anonimização, o bloqueio ou a eliminação de dados desnecessários ou tratados em desconformidade com a lei;</li>
          <li>a portabilidade dos seus dados a outro fornecedor;</li>
          <li>informações sobre com quem compartilhamos os seus dados;</li>
          <li>a revogação do consentimento e a eliminação dos dados tratados com base nele.</li>
        </ul>
        <p>
          Para exercer esses direitos, escreva para <a href={`mailto:${BRAND.dpoEmail}`}>{BRAND.dpoEmail}</a>. Responderemos em até 15
          (quinze) dias. Você também pode apresentar reclamação à ANPD.
        </p>
      </LegalSection>

      <LegalSection n={8} title="Cookies e armazenamento local">
        <p>
          Usamos o armazenamento do seu navegador para manter a sua sessão ativa. Quando você marca “Manter-me conectado”, a sessão fica
          guardada até você sair da conta; caso contrário, termina quando o navegador é fechado. Esses dados são essenciais para o
          funcionamento da plataforma e não são usados para publicidade.
        </p>
      </LegalSection>

      <LegalSection n={9} title="Menores de idade, alterações e contato">
        <p>
          A plataforma não se destina a menores de 18 anos e não coleta intencionalmente os seus dados; contas criadas em desacordo com essa
          regra são encerradas. Esta política pode ser atualizada, e a versão vigente fica sempre publicada nesta página com a data de
          atualização. Dúvidas podem ser enviadas para <a href={`mailto:${BRAND.supportEmail}`}>{BRAND.supportEmail}</a> ou pelos telefones{' '}
          {BRAND.supportPhones.join(' e ')}.
        </p>
      </LegalSection>
    </div>
  );
}
