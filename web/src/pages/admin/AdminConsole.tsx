import { Route, Routes } from 'react-router-dom';
import NotFoundPage from '../not-found/NotFoundPage';
import InfoproductsPage from './InfoproductsPage';
import PaymentsReviewPage from './PaymentsReviewPage';

/**
 * Entry of the admin console. It is loaded with React.lazy from the route table, so its code
 * (and the code of every admin page it routes to) lives in a separate chunk that customers never
 * download. The console's pages are not built yet: every /admin address answers "not found".
 */
export default function AdminConsole() {
  return (
    <Routes>
      <Route path="infoproducts" element={<InfoproductsPage />} />
      <Route path="pagamentos" element={<PaymentsReviewPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
