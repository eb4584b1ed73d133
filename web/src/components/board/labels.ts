/** 7 → "07": how a board number is written everywhere (storefront spec §9). */
export const pad2 = (n: number) => String(n).padStart(2, '0');
