/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_BASE?: string;
  readonly VITE_BRAND_COMPANY?: string;
  readonly VITE_BRAND_CNPJ?: string;
  readonly VITE_BRAND_CITY?: string;
  readonly VITE_BRAND_JURISDICTION?: string;
  readonly VITE_BRAND_ISSUER?: string;
  readonly VITE_BRAND_PHONES?: string;
  readonly VITE_BRAND_EMAIL?: string;
  readonly VITE_BRAND_DPO_EMAIL?: string;
  readonly VITE_BRAND_GROUP_URL?: string;
  /** 'off' disables the PIX payment status check (it then always answers pending). */
  readonly VITE_PAYMENT_STATUS_CHECK?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
