/**
 * Shapes the server answers, declared once in src/shared/api (the server's serializers return
 * them): re-exported here so the web keeps one import path. Money in cents.
 */
export type {
  BoardNumber,
  ConsumeResult,
  Draw,
  DrawBoard,
  DrawCounts,
  DrawResultWord,
  DrawStatus,
  NumberStatus,
  PendingDraw,
  MyReservations,
  Reservation,
  ReservationNumber,
  ReservationStatus,
  VoucherAllowance,
} from '../../../src/shared/api/draws';
export type {
  CatalogueItem,
  CatalogueSection,
  OpenDrawAnswer,
  Product,
  ProductDetail,
  PublicConfig,
} from '../../../src/shared/api/catalogue';
export type { PixPayment } from '../../../src/shared/api/payments';
export type {
  ActiveClient,
  ActiveClientList,
  AdminUser,
  AdminUserCreated,
  AdminUserList,
  AdminUserRemoved,
  AdminUserSaved,
  AssignNumbersResult,
} from '../../../src/shared/api/admin-users';
export type {
  DrawParticipants,
  HeldDraw,
  OpenBuyer,
  OpenBuyerNumber,
  OpenBuyers,
  Page,
  Participant,
  ParticipantEntry,
  ParticipantNumber,
  Winner,
  WinnerList,
} from '../../../src/shared/api/admin-history';
export type { AuditEntryView, AuditPage } from '../../../src/shared/api/audit';
export type {
  AdminDraw,
  AdminDrawChange,
  AdminDrawList,
  DashboardSummary,
  NewSeriesResult,
  ResultAlert,
} from '../../../src/shared/api/admin-draws';
export type { AdminCategory, AdminInfoproduct, AdminInfoproductList } from '../../../src/shared/api/admin-infoproducts';
export type { AdminPayment, AdminPaymentList } from '../../../src/shared/api/admin-payments';
export type { DrawResult, ResultPreview, WalkStep, WalkReason } from '../../../src/shared/api/results';
export type { OpsLink, QueueStatus, BackupStatus, BackupRunView } from '../../../src/shared/api/ops';
export type {
  AutopayCardConfig,
  AutopayCardSummary,
  AutopayClaims,
  AutopayConflict,
  AutopayProfile,
  AutopayRunStatus,
  AutopayRunView,
  AutopayRunsPage,
  AutopaySaveResult,
  SandboxCardToken,
  SandboxCardTokenRequest,
} from '../../../src/shared/api/autopay';
