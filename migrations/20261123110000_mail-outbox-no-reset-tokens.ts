import type { Knex } from 'knex';

/**
 * Reset links are rendered when the mail is sent and never kept: the outbox keeps the text with
 * the link left out. A reset request for an address with no account ends as 'dropped' (nothing
 * sent). Rows written before this change lose the token of their link.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_status_check;
    ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_status_check
      CHECK (status IN ('pending', 'sent', 'logged', 'failed', 'dropped'));
    UPDATE mail_outbox
       SET body_text = regexp_replace(body_text, '([\\?&]token=)[^[:space:]&"''<>]+', '\\1[omitido]', 'g'),
           body_html = regexp_replace(body_html, '([\\?&]token=)[^[:space:]&"''<>]+', '\\1[omitido]', 'g')
     WHERE template = 'password_reset';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE mail_outbox SET status = 'logged' WHERE status = 'dropped';
    ALTER TABLE mail_outbox DROP CONSTRAINT IF EXISTS mail_outbox_status_check;
    ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_status_check
      CHECK (status IN ('pending', 'sent', 'logged', 'failed'));
  `);
}
