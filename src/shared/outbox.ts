/** The mail outbox's statuses (its own module: the CLI lists them in its help without loading the mailer). */
export type OutboxStatus = 'pending' | 'sent' | 'logged' | 'failed' | 'dropped';
export const OUTBOX_STATUSES: readonly OutboxStatus[] = ['pending', 'sent', 'logged', 'failed', 'dropped'];
