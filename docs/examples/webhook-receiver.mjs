#!/usr/bin/env node
// A webhook receiver for trying the service locally, with node's standard library only:
//   WEBHOOK_SECRET=whsec_… PORT=4242 node docs/examples/webhook-receiver.mjs
// It checks each delivery's X-Service-Signature on the raw body (docs/api.md "Verifying a delivery"),
// answers 2xx at once, and prints the event's id, type and session status.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const SECRETS = [process.env.WEBHOOK_SECRET]; // while rotating, list the new and the old secret
const TOLERANCE_SECONDS = 300;
const seen = new Set(); // in production: a unique constraint on the event id in your database

if (!SECRETS[0]?.startsWith('whsec_')) {
  console.error('set WEBHOOK_SECRET to the endpoint secret (whsec_…)');
  process.exit(2);
}

/** True when the header carries a fresh timestamp and a v1 signature of `<t>.<raw body>` by one of our secrets. */
function verify(header, rawBody, secrets = SECRETS, now = Date.now()) {
  if (!header) return false;
  const fields = header.split(',').map((part) => part.split('=', 2));
  const t = Number(fields.find(([key]) => key === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > TOLERANCE_SECONDS) return false;
  const given = fields.filter(([key]) => key === 'v1').map(([, value]) => Buffer.from(value ?? '', 'utf8'));
  return secrets.some((secret) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex'), 'utf8');
    return given.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
  });
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    if (req.method !== 'POST' || !verify(req.headers['x-service-signature'], rawBody)) {
      console.log('refused: bad or missing signature');
      res.writeHead(400).end();
      return;
    }
    const event = JSON.parse(rawBody.toString('utf8'));
    res.writeHead(200).end(); // answer fast; do the work elsewhere
    if (seen.has(event.id)) return; // a retry or a redelivery of an event already handled
    seen.add(event.id);
    if (event.type === 'test') console.log(`${event.id} test event`);
    else console.log(`${event.id} ${event.type}: session ${event.data.object.id} is ${event.data.object.status}`);
  });
});
server.listen(Number(process.env.PORT ?? 4242), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/`);
});
