import { useDocumentTitle } from '../../components/useDocumentTitle';
import { Hero, HeroMore } from './Hero';
import { HowItWorks } from './HowItWorks';
import { ProductGrid } from './ProductGrid';

/**
 * Home storefront (storefront spec §2 Home), inside the shared layout. On a phone the first screen
 * shows the title and the first e-book's price, prize and "Comprar e-book"; the explanation follows
 * the cards (HeroMore, issue 26). tests/e2e/home-phone.e2e.test.ts measures it.
 */
export default function HomePage() {
  useDocumentTitle();
  return (
    <div className="page home">
      <Hero />
      <ProductGrid />
      <HeroMore className="hero-more--phone" />
      <HowItWorks />
    </div>
  );
}
