/** Up to 3 uppercase initials for public boards: "Maria da Silva" → "MDS". */
export function initialsOf(name: string | null | undefined): string {
  const parts = (name ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/\s+/)
    .filter(Boolean);
  return parts
    .map((p) => p[0])
    .join('')
    .toUpperCase()
    .replace(/[^A-Z]/g, '')
    .slice(0, 3);
}
