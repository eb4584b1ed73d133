import { Alert, Button } from 'antd';
import { MailOutlined, WhatsAppOutlined } from '@ant-design/icons';
import type { PrizeClaim, PrizeView } from '../../../../src/shared/prize';
import { deadlineText, formatBrasiliaDate, formatWhatsapp, NO_CONTACT_YET, whatsappUrl } from '../../../../src/shared/prize';
import { formatReceiptAmount } from '../../../../src/shared/receipt';
import { countOf } from '../../../../src/shared/plural';
import './prize.css';

/** "faltam 89 dias", "falta 1 dia". */
const daysLeftText = (n: number) => `${n === 1 ? 'falta' : 'faltam'} ${countOf(n, 'dia', 'dias')}`;

/** The prize in words: its name (a link when the admin gave one) and amount (net, as the storefront states it). */
export function PrizeSummary({ prize }: { prize: PrizeView }) {
  return (
    <div className="prize-summary">
      <p className="prize-name">
        {prize.link ? (
          <a href={prize.link} target="_blank" rel="noopener noreferrer">
            {prize.name}
          </a>
        ) : (
          prize.name
        )}
      </p>
      {prize.amount_cents > 0 && (
        <p className="prize-amount">
          <span className="prize-amount-value">{formatReceiptAmount(prize.amount_cents)}</span> <span className="muted">valor líquido</span>
        </p>
      )}
    </div>
  );
}

/** The winner's claim: until when, how, and whom to contact (RULES W10; the server computes the deadline). */
export function PrizeClaimDetails({ claim, drawId }: { claim: PrizeClaim; drawId: number }) {
  const { contact } = claim;
  const deadline = deadlineText(claim.deadline);
  return (
    <div className="prize-claim">
      {claim.redeemed ? (
        <Alert type="success" showIcon title="Prêmio resgatado. Parabéns!" />
      ) : claim.expired ? (
        <Alert type="warning" showIcon title={`O prazo para resgatar terminou em ${formatBrasiliaDate(claim.deadline)}.`} />
      ) : (
        <p className="prize-deadline">
          <strong>Prazo para resgatar:</strong> {deadline}
          <span className="prize-days-left">{claim.days_left > 0 ? ` — ${daysLeftText(claim.days_left)}` : ' — é o último dia'}</span>
        </p>
      )}
      {!claim.redeemed && (
        <>
          <p className="prize-how">
            <strong>Como resgatar:</strong> {claim.how}
          </p>
          <div className="prize-contact" aria-label="Contato para o resgate" role="group">
            {contact.whatsapp && (
              <Button
                className="prize-contact-whatsapp"
                icon={<WhatsAppOutlined aria-hidden />}
                href={whatsappUrl(contact.whatsapp, drawId)}
                target="_blank"
                rel="noopener noreferrer"
              >
                <span>
                  WhatsApp <span className="prize-nowrap">{formatWhatsapp(contact.whatsapp)}</span>
                </span>
              </Button>
            )}
            {contact.email && (
              <Button
                icon={<MailOutlined aria-hidden />}
                href={`mailto:${contact.email}?subject=${encodeURIComponent(`Prêmio do Sorteio #${String(drawId).padStart(3, '0')}`)}`}
              >
                {contact.email}
              </Button>
            )}
            {!contact.whatsapp && !contact.email && <p className="muted">{NO_CONTACT_YET}</p>}
          </div>
        </>
      )}
    </div>
  );
}
