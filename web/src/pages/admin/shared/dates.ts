import dayjs from 'dayjs';

/** ISO timestamp → "22/11/2025 14:05:09" (the audit log wants the seconds). No other import: unit tests load it. */
export const formatDateTimeSeconds = (iso: string | null | undefined) =>
  iso && dayjs(iso).isValid() ? dayjs(iso).format('DD/MM/YYYY HH:mm:ss') : '';
