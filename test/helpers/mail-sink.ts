import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** A real SMTP server on localhost: plain text, AUTH accepted (or refused quoting the password, to test scrubbing). */
export class MailSink {
  readonly received: ParsedMail[] = [];
  refuseAuth = false;
  private server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _session, cb) => {
      if (this.refuseAuth) cb(new Error(`password ${auth.password} refused`));
      else cb(null, { user: auth.username });
    },
    onData: (stream, _session, cb) => {
      simpleParser(stream).then((m) => {
        this.received.push(m);
        cb();
      }, cb);
    },
  });
  listen(port: number) {
    return new Promise<void>((r) => this.server.listen(port, '127.0.0.1', () => r()));
  }
  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}
