import type { DrawRow } from '../draws/queries';
import { pad } from './model';
import { formatReceiptAmount } from '../shared/receipt';
import { deadlineText, formatWhatsapp, type PrizeClaim, type PrizeView } from '../shared/prize';

/**
 * The mails of a decision (RULES W4, W6, W8), sent through the outbox: the winner's announcement,
 * the retraction of a win a correction took away, and the one a refund took away.
 */

export function winnerMail(
  publicUrl: string,
  d: DrawRow,
  user: { name: string; email: string },
  contest: number,
  n: number,
  prize: { prize: PrizeView; claim: PrizeClaim },
) {
  const first = user.name.split(/\s+/)[0] || user.name;
  const { contact } = prize.claim;
  const contacts = [
    contact.whatsapp ? `WhatsApp: ${formatWhatsapp(contact.whatsapp)} (https://wa.me/${contact.whatsapp})` : null,
    contact.email ? `E-mail: ${contact.email}` : null,
  ].filter((l): l is string => l !== null);
  return {
    to: user.email,
    template: 'draw_won',
    subject: `Você foi contemplado no sorteio "${d.title}"!`,
    text: [
      `Olá, ${first}!`,
      '',
      `O seu número ${pad(n)} foi o contemplado do sorteio "${d.title}", decidido pelo concurso ${contest} da Lotomania.`,
      '',
      `Seu prêmio: ${prize.prize.name} (${formatReceiptAmount(prize.prize.amount_cents)}, valor líquido).`,
      ...(prize.prize.link ? [`Sobre o prêmio: ${prize.prize.link}`] : []),
      `Veja o prêmio e o sorteio: ${publicUrl}/me/draw/${d.id}`,
      '',
      `Como resgatar: ${prize.claim.how}`,
      `Prazo para resgatar: ${deadlineText(prize.claim.deadline)}. Depois desse prazo o direito ao prêmio caduca.`,
      '',
      'Contato para o resgate:',
      ...(contacts.length ? contacts : ['Responda a este e-mail.']),
      '',
      `Confira o resultado: ${publicUrl}/resultado/${d.id}`,
      `Acompanhe o seu prêmio em: ${publicUrl}/conta`,
      '',
      'Equipe Cota Verde',
    ].join('\n'),
  };
}

export function retractionMail(publicUrl: string, d: DrawRow, user: { name: string; email: string }, contest: number, n: number | null) {
  const first = user.name.split(/\s+/)[0] || user.name;
  return {
    to: user.email,
    template: 'draw_win_retracted',
    subject: `Correção do resultado do sorteio "${d.title}"`,
    text: [
      `Olá, ${first}.`,
      '',
      `O resultado do concurso ${contest} da Lotomania, que decidiu o sorteio "${d.title}", foi corrigido.` +
        (n !== null
          ? ` Com os números corretos, o seu número ${pad(n)} não é o contemplado: o aviso anterior de prêmio fica sem efeito.`
          : ' O aviso anterior de prêmio fica sem efeito.'),
      'Pedimos desculpas pelo engano.',
      '',
      `Confira o resultado: ${publicUrl}/resultado/${d.id}`,
      '',
      'Equipe Cota Verde',
    ].join('\n'),
  };
}

export function refundRetractionMail(publicUrl: string, d: DrawRow, user: { name: string; email: string }, n: number | null) {
  const first = user.name.split(/\s+/)[0] || user.name;
  return {
    to: user.email,
    template: 'draw_win_retracted',
    subject: `Correção do resultado do sorteio "${d.title}"`,
    text: [
      `Olá, ${first}.`,
      '',
      `O pagamento que comprou o seu número${n !== null ? ` ${pad(n)}` : ''} no sorteio "${d.title}" foi estornado (ou contestado), e um número cujo pagamento foi devolvido não concorre.` +
        ' O aviso anterior de prêmio fica sem efeito, e o sorteio foi apurado de novo com as mesmas dezenas do concurso.',
      'Se você não reconhece este estorno, responda a este e-mail.',
      '',
      `Confira o resultado: ${publicUrl}/resultado/${d.id}`,
      '',
      'Equipe Cota Verde',
    ].join('\n'),
  };
}
