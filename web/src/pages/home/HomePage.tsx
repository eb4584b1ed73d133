import { useDocumentTitle } from '../../components/useDocumentTitle';
import { Hero } from './Hero';
import { HowItWorks } from './HowItWorks';
import { ProductGrid } from './ProductGrid';

/** Home storefront (storefront spec §2 Home), inside the shared layout. */
export default function HomePage() {
  useDocumentTitle();
  return (
    <div className="page">
      <Hero />
      <ProductGrid />
      <HowItWorks />
    </div>
  );
}
