import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** One message the fake server accepted: the raw DATA and its decoded text part. */
export interface ReceivedMail {
  raw: string;
  /** Envelope recipients (RCPT TO). */
  to: string[];
  subject: string;
  /** The body, transfer encoding (quoted-printable / base64) undone. */
  text: string;
  /** A header's value as sent (folded lines joined), '' when absent: e.g. header('Reply-To'). */
  header(name: string): string;
}

export interface FakeSmtp {
  url: string;
  /** Raw DATA of every message, in order. */
  received: string[];
  mails: ReceivedMail[];
  close(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const joined = s.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const c = joined[i];
    if (c === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(i + 1, i + 3))) {
      bytes.push(parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Splits a single-part message into headers and decoded text (what nodemailer sends for a text mail). */
function parse(raw: string, to: string[]): ReceivedMail {
  const cut = raw.indexOf('\n\n');
  const head = cut >= 0 ? raw.slice(0, cut) : raw;
  const body = cut >= 0 ? raw.slice(cut + 2) : '';
  const headers = head.replace(/\n[ \t]+/g, ' ');
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers)?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  let text = body;
  if (encoding === 'quoted-printable') text = decodeQuotedPrintable(body);
  else if (encoding === 'base64') text = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  let subject = header('Subject');
  // RFC 2047 encoded words (a subject with accents)
  subject = subject.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, kind: string, data: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
  return { raw, to, subject: subject.trim(), text, header };
}

/** A minimal SMTP server on 127.0.0.1 that accepts every message and keeps it. */
export async function fakeSmtp(): Promise<FakeSmtp> {
  const received: string[] = [];
  const mails: ReceivedMail[] = [];
  const server = net.createServer((socket) => {
    let inData = false;
    let data = '';
    let buffer = '';
    let rcpt: string[] = [];
    socket.write('220 fake.smtp ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(data);
            mails.push(parse(data, rcpt));
            data = '';
            rcpt = [];
            socket.write('250 2.0.0 queued\r\n');
          } else data += (line.startsWith('..') ? line.slice(1) : line) + '\n';
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO' || cmd === 'HELO') socket.write('250 fake.smtp\r\n');
        else if (cmd === 'RCPT') {
          const m = /<([^>]*)>/.exec(line);
          if (m) rcpt.push(m[1]);
          socket.write('250 ok\r\n');
        } else if (cmd === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (cmd === 'QUIT') {
          socket.write('221 bye\r\n');
          socket.end();
        } else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    mails,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}
