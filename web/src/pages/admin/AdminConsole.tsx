import { Route, Routes } from 'react-router-dom';
import NotFoundPage from '../not-found/NotFoundPage';
import AdminUsersPage from './AdminUsersPage';
import ActiveClientsPage from './ActiveClientsPage';

/**
 * Entry of the admin console. It is loaded with React.lazy from the route table, so its code
 * (and the code of every admin page it routes to) lives in a separate chunk that customers never
 * download. The console's pages are not built yet: every /admin address answers "not found".
 */
export default function AdminConsole() {
  return (
    <Routes>
      <Route path="AdminClientesUser" element={<AdminUsersPage />} />
      <Route path="clientes" element={<ActiveClientsPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
