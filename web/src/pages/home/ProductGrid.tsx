/**
 * Slot for the storefront's product cards (storefront spec §2 Home: up to 12 cards, 3 skeletons
 * while loading). The catalogue issue fills it in; until then it renders nothing, so the home page
 * never shows invented products.
 */
export function ProductGrid() {
  return null;
}
