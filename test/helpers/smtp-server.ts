// A real SMTP server for completion-notification tests (npm `smtp-server`), listening on 127.0.0.1 and
// keeping every message it receives (envelope + raw RFC 5322 text) in memory. STARTTLS is disabled so
// nodemailer talks plain SMTP to it, as it would to a local relay.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpTestServer {
  /** smtp://127.0.0.1:<port> — the value for DOCSEARCH_SMTP_URL. */
  url: string;
  inbox: ReceivedMail[];
  /** Resolve once `n` messages have arrived (reject after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** Start the server on a free port. */
export async function startSmtpServer(): Promise<SmtpTestServer> {
  const inbox: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const env = session.envelope;
        inbox.push({
          from: env.mailFrom ? env.mailFrom.address : '',
          to: env.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    async waitFor(n, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (inbox.length < n) {
        if (Date.now() > deadline) throw new Error(`SMTP inbox has ${inbox.length} message(s), expected ${n}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return inbox;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
