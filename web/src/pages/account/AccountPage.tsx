import { useCallback, useRef } from 'react';
import { useAuth } from '../../auth/AuthContext';
import { ProfileError } from '../../components/ProfileError';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { AutopayCard } from './AutopayCard';
import { CouponCard, type CouponCardHandle } from './CouponCard';
import { DrawSettings } from './DrawSettings';
import { firstName, formatDate } from './format';
import { MyPrizes } from './MyPrizes';
import { Participations } from './Participations';
import { Receipts } from './Receipts';
import { RegistrationData } from './RegistrationData';
import { SecurityCard } from './SecurityCard';
import { useParticipations } from './useParticipations';
import { usePixPay } from './usePixPay';
import './account.css';

/**
 * Customer area (/conta, account spec §2): header, the winner's prizes, participations (with the
 * PIX pay flow; first, issue 26), coupon balance, registration data with the data export, the automatic purchase of captive numbers
 * (autopay) and the draw settings for administrators.
 */
export default function AccountPage() {
  useDocumentTitle('Área do cliente');
  const { user, isAdmin } = useAuth();
  const participations = useParticipations();
  const coupon = useRef<CouponCardHandle>(null);
  const { reload } = participations;
  // After an approval (or a failed attempt): fresh rows; the coupon syncs with the new payment.
  const refresh = useCallback(() => {
    reload();
    coupon.current?.sync();
  }, [reload]);
  const pix = usePixPay(refresh);

  if (!user) return <ProfileError />;
  const since = formatDate(user.created_at);
  return (
    <div className="page page-account">
      <header className="account-header">
        <p className="account-kicker">Área do cliente</p>
        <h1>Olá{firstName(user.name) ? `, ${firstName(user.name)}` : ''}!</h1>
        {since && <p className="muted">Cliente desde {since}</p>}
      </header>
      {/* Phones: prizes, participations, balance, data, security, autopay, settings; desktops: the participations table first, balance and data side by side below it, security beside autopay below them. */}
      <div className="account-grid">
        {/* Issue 26: a winner's prize, then 'Minhas participações', before the coupon card. */}
        <div className="account-slot account-slot--main">
          <MyPrizes />
          <Participations data={participations} generating={pix.generating} onPay={pix.pay} />
          <Receipts payments={participations.payments} />
        </div>
        <div className="account-slot account-slot--coupon">
          <CouponCard ref={coupon} />
        </div>
        <div className="account-slot account-slot--side">
          <RegistrationData user={user} />
        </div>
        <div className="account-slot account-slot--security">
          <SecurityCard user={user} />
        </div>
        <div className="account-slot account-slot--autopay">
          <AutopayCard onChanged={reload} />
        </div>
        {isAdmin && (
          <div className="account-slot account-slot--settings">
            <DrawSettings />
          </div>
        )}
      </div>
      {pix.dialog}
    </div>
  );
}
