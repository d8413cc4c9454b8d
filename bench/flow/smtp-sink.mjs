// The flow benchmark's SMTP sink (started by run.mjs): accepts every mail on 127.0.0.1 and reports
// each one's recipients and 6-digit code to the parent process.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { SMTPServer } = require('smtp-server');

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join('\n');
      const code = /\b(\d{6})\b/.exec(body)?.[1] ?? null;
      process.send({ mail: { to: session.envelope.rcptTo.map((r) => r.address), code } });
      callback();
    });
  },
});

server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
