/**
 * Company and contact data shown in the footer and on the legal pages.
 * Each value may be overridden at build time with the VITE_BRAND_* variable named next to it,
 * so the operator sets the real registration data without touching the code.
 */
const env = import.meta.env;

function list(value: string | undefined, fallback: string[]): string[] {
  if (!value) return fallback;
  return value
    .split(/[;,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export const BRAND = {
  /** Commercial name (logo, titles). */
  name: 'Cota Verde',
  /** Promoter: the company that sells the e-books and runs the platform. VITE_BRAND_COMPANY */
  companyName: env.VITE_BRAND_COMPANY || 'Cota Verde Tecnologia Ltda.',
  /**
   * Promoter's CNPJ. VITE_BRAND_CNPJ. The default's check digits are deliberately invalid so that
   * it can never be mistaken for another company's registration: set the real one for production.
   */
  companyCnpj: env.VITE_BRAND_CNPJ || '52.318.774/0001-06',
  /** City/state of the promoter, also the chosen court district. VITE_BRAND_CITY */
  companyCity: env.VITE_BRAND_CITY || 'Curitiba/PR',
  /** Court district named in the terms of use. */
  jurisdiction: env.VITE_BRAND_JURISDICTION || 'Comarca de Curitiba/PR',
  /** Partner capitalization company that issues the incentive-type bonds. VITE_BRAND_ISSUER */
  issuerName: env.VITE_BRAND_ISSUER || 'sociedade de capitalização parceira',
  /** Support phone lines, separated by ";" in the variable. VITE_BRAND_PHONES */
  supportPhones: list(env.VITE_BRAND_PHONES, ['(41) 3090-4120', '(41) 99870-4120']),
  /** Support e-mail (privacy requests go here too). VITE_BRAND_EMAIL */
  supportEmail: env.VITE_BRAND_EMAIL || 'atendimento@cotaverde.com.br',
  /** Data protection officer contact (LGPD). VITE_BRAND_DPO_EMAIL */
  dpoEmail: env.VITE_BRAND_DPO_EMAIL || 'privacidade@cotaverde.com.br',
  /** Community group (WhatsApp) invitation link. VITE_BRAND_GROUP_URL */
  communityGroupUrl: env.VITE_BRAND_GROUP_URL || 'https://chat.whatsapp.com/CotaVerdeComunidade',
} as const;

/** Responsible-gaming resources linked from /jogo-responsavel. */
export const RESPONSIBLE_GAMING = {
  instituteName: 'Instituto Brasileiro de Jogo Responsável (IBJR)',
  instituteUrl: 'https://ibjr.org.br/',
  treatmentSearchUrl: 'https://www.google.com/search?q=' + encodeURIComponent('grupos de apoio Jogadores Anônimos perto de mim'),
} as const;

/** Digits of a phone line, for tel: links. */
export const telHref = (phone: string) => `tel:+55${phone.replace(/\D+/g, '')}`;
