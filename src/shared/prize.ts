/**
 * The winner's prize and how to claim it (storefront spec, terms: "O ganhador tem 90 (noventa)
 * dias, contados do sorteio, para reclamar o prêmio"; RULES W10). Types and pure functions only:
 * the server computes the deadline, the web and the winner's e-mail show the same words.
 */
import { calendarDateInBrazil } from './validation';

/** The terms' claim window, in days from the result (web/src/pages/legal/TermsContent.tsx). */
export const PRIZE_CLAIM_DAYS = 90;

/** How to claim, in the terms' words (prize paid in reais, by PIX or transfer, to the winner's own account). */
export const HOW_TO_CLAIM =
  'Fale com a loja pelo WhatsApp ou por e-mail, confirme seus dados e apresente um documento de identificação com foto. ' +
  'O prêmio é pago em reais, por PIX ou transferência bancária, para uma conta em seu nome.';

export const NO_CONTACT_YET = 'Responda ao e-mail que avisou do prêmio: a loja ainda não informou outro contato.';

/** The store's contact for prizes (app settings, edited in the console). */
export interface PrizeContact {
  /** WhatsApp number, digits with the country code (5541999998888); null when not set. */
  whatsapp: string | null;
  email: string | null;
}

/** What anyone who may see the draw sees of its prize. */
export interface PrizeView {
  /** The prize item the admin recorded, else the draw's prize in words. */
  name: string;
  /** Prize amount (net of income tax, as the storefront states it). */
  amount_cents: number;
  /** The prize item's link (http or https only), when the admin gave one. */
  link: string | null;
}

/** Only the winner sees this. */
export interface PrizeClaim {
  /** ISO instant: the last moment to claim (the end of the 90th day after the result, Brasília). */
  deadline: string;
  /** Whole days left (0 on the last day; 0 once expired). */
  days_left: number;
  expired: boolean;
  /** The admin marked the prize as delivered (RESGATADO). */
  redeemed: boolean;
  how: string;
  contact: PrizeContact;
}

/** GET /api/me/prizes → {items: MyPrize[]} newest first: the caller's own prizes. */
export interface MyPrize {
  draw_id: number;
  draw_title: string;
  winner_number: number;
  realized_at: string;
  prize: PrizeView;
  claim: PrizeClaim;
  /** The draw's page in the customer area (/me/draw/{id}). */
  draw_path: string;
}

const DAY = 86_400_000;

/**
 * The claim deadline: the end (23:59:59.999, Brasília, UTC−3 with no summer time since 2019) of
 * the calendar day 90 days after the day the result was recorded.
 */
export function claimDeadline(realizedAt: Date | string): Date {
  const { y, m, d } = calendarDateInBrazil(new Date(realizedAt));
  return new Date(Date.UTC(y, m - 1, d + PRIZE_CLAIM_DAYS + 1, 2, 59, 59, 999));
}

export function claimFor(
  draw: { realized_at: Date | string; redeemed: boolean },
  contact: PrizeContact,
  now: Date = new Date(),
): PrizeClaim {
  const deadline = claimDeadline(draw.realized_at);
  const left = deadline.getTime() - now.getTime();
  return {
    deadline: deadline.toISOString(),
    days_left: left <= 0 ? 0 : Math.floor(left / DAY),
    expired: left <= 0,
    redeemed: draw.redeemed,
    how: HOW_TO_CLAIM,
    contact,
  };
}

const safeLink = (url: string | null | undefined) => (url && /^https?:\/\/\S+$/i.test(url.trim()) ? url.trim() : null);

export function prizeOf(draw: { title: string; prize_cents: number; product_name: string | null; product_link: string | null }): PrizeView {
  return {
    name: draw.product_name?.trim() || `Prêmio do sorteio “${draw.title}”`,
    amount_cents: draw.prize_cents,
    link: safeLink(draw.product_link),
  };
}

/** "+55 (41) 99999-8888" from 5541999998888 (other lengths: "+" and the digits). */
export function formatWhatsapp(digits: string): string {
  const m = /^55(\d{2})(\d{4,5})(\d{4})$/.exec(digits);
  return m ? `+55 (${m[1]}) ${m[2]}-${m[3]}` : `+${digits}`;
}

/** A wa.me link that opens the chat with a first message naming the draw. */
export function whatsappUrl(digits: string, drawId: number): string {
  const text = `Olá! Fui contemplado no Sorteio #${String(drawId).padStart(3, '0')} e quero resgatar o meu prêmio.`;
  return `https://wa.me/${digits}?text=${encodeURIComponent(text)}`;
}

let dayFormat: Intl.DateTimeFormat | null = null;
/** "26/02/2027" in Brasília. */
export function formatBrasiliaDate(at: Date | string): string {
  dayFormat ??= new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric' });
  return dayFormat.format(new Date(at));
}

/** "até 26/02/2027 (23h59, horário de Brasília)". */
export function deadlineText(deadline: Date | string): string {
  return `até ${formatBrasiliaDate(deadline)} (23h59, horário de Brasília)`;
}
