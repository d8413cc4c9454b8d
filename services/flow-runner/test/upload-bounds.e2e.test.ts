import { readFileSync } from 'node:fs';
import type net from 'node:net';
import { buildTenant, startServiceFromEnv, testEnv } from '@idv/testkit';
import { buildConfig, createSession } from './fixtures';
import { Person, inputValue } from './person';
import { rawRequest, type RawAnswer } from './raw-http';

/**
 * The memory and time an upload may take, on a flow-runner replica of the stack with small bounds
 * (no reading or face threads: it only serves pages, so its memory is the pages' alone; the bytes
 * read and dropped to let a browser read its answer pass through memory as garbage, about half the
 * rise measured): strangers'
 * bodies are never read, one address's uploads in memory stay within its bound, and a slow sender is
 * cut at the minimum rate, its headers at the headers timeout.
 */
const MB = 1024 * 1024;
const CONNECTIONS = 30;
const BOUNDARY = 'X';
let replica: Awaited<ReturnType<typeof startServiceFromEnv>>;

beforeAll(async () => {
  replica = await startServiceFromEnv('flow-runner', {
    VERIFICATION_THREADS: '0',
    FACE_THREADS: '0',
    FLOW_BASE_URL: testEnv().flowUrl,
    UPLOAD_MEMORY_MB: '64',
    UPLOAD_MEMORY_PER_ADDRESS_MB: '16',
    UPLOAD_MIN_BYTES_PER_SECOND: '8192',
    UPLOAD_RATE_WINDOW_MS: '1000',
    HTTP_HEADERS_TIMEOUT_MS: '2000',
  });
}, 60_000);

afterAll(() => replica?.stop());

const residentBytes = () =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${replica.process.pid}/status`, 'utf8'))?.[1]) * 1024;

/** The process's resident memory, sampled every 20 ms while `work` runs: the highest rise over its start. */
async function peakRise<T>(work: () => Promise<T>): Promise<{ result: T; riseBytes: number }> {
  const before = residentBytes();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, residentBytes())), 20);
  try {
    const result = await work();
    return { result, riseBytes: Math.max(peak, residentBytes()) - before };
  } finally {
    clearInterval(sampler);
  }
}

async function atFaceOrDocumentStep() {
  const tenant = await buildTenant({
    config: buildConfig([{ id: 'doc', type: 'document_ar', documents: ['passport'] }]),
    modes: ['test'],
  });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const person = new Person(replica.url);
  await person.get(session.url.replace(testEnv().flowUrl, replica.url));
  const page = await person.submit({ action: 'accept' });
  return {
    session,
    csrf: inputValue(page.text, '_csrf')!,
    cookie: [...person.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
  };
}

const uploadHead = (sessionId: string, length: number, cookie?: string) =>
  [
    `POST /s/${sessionId} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Accept-Language: es-AR',
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
    `Content-Length: ${length}`,
    ...(cookie ? [`Cookie: ${cookie}`] : []),
  ].join('\n');

const formStart = (csrf: string, fileField: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n` +
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="step"\r\n\r\ndoc\r\n` +
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${fileField}"; filename="f.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;

/** Writes `bytes` of a file part's content in 64 KB pieces as fast as the connection takes them, then holds. */
function sendThenHold(start: string, bytes: number) {
  return (socket: net.Socket) => {
    socket.write(start);
    const piece = Buffer.alloc(64 * 1024, 0x41);
    for (let sent = 0; sent < bytes; sent += piece.length) socket.write(piece);
  };
}

describe('upload bounds', () => {
  test(`when ${CONNECTIONS} connections without the flow's cookie each start sending 22 MB and hold, then each is answered from its headers at once and the memory barely moves`, async () => {
    const { session } = await atFaceOrDocumentStep();

    const { result: answers, riseBytes } = await peakRise(() =>
      Promise.all(
        Array.from({ length: CONNECTIONS }, (_, index) =>
          rawRequest(replica.url, uploadHead(index % 2 ? session.id : 'vs_00000000000000000000000000', 22 * MB), {
            writeBody: sendThenHold(formStart('guess', 'frame'), 4 * MB),
            timeoutMs: 10_000,
          }),
        ),
      ),
    );

    for (const answer of answers) {
      expect([403, 404]).toContain(answer.status);
      expect(answer.answeredAfterMs).toBeLessThan(5000);
    }
    expect(riseBytes).toBeLessThan(100 * MB);
  });

  test(`when ${CONNECTIONS} connections of one person each send 7 MB of a face frame and hold, then only the address's bound is kept in memory, the rest are refused 429, and the held ones are cut at the minimum rate`, async () => {
    const { session, csrf, cookie } = await atFaceOrDocumentStep();
    let mostHeld = 0;
    let sampling = true;
    const heldSampler = (async () => {
      while (sampling) {
        const metrics = await (await fetch(`${replica.url}/metrics`)).text();
        mostHeld = Math.max(mostHeld, Number(/^flow_upload_bytes_held\{[^}]*\} (\d+)$/m.exec(metrics)?.[1] ?? 0));
        // The sampling period of the gauge, not a wait for a condition: the peak is what is measured.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const { result: answers, riseBytes } = await peakRise(() =>
      Promise.all(
        Array.from({ length: CONNECTIONS }, () =>
          rawRequest(replica.url, uploadHead(session.id, 22 * MB, cookie), {
            writeBody: sendThenHold(formStart(csrf, 'frame'), 7 * MB),
            timeoutMs: 15_000,
          }),
        ),
      ),
    ).finally(() => (sampling = false));
    await heldSampler;

    const byStatus = (status: number) => answers.filter((answer: RawAnswer) => answer.status === status);
    // 16 MB for the address: two frames of 7 MB fit at once, the third does not. A held one cut at the
    // minimum rate gives its bytes back, so on a loaded machine a later connection may be kept in its place.
    expect(mostHeld).toBeLessThanOrEqual(16 * MB);
    expect(byStatus(429).length).toBeGreaterThanOrEqual(CONNECTIONS / 2);
    expect(byStatus(429)[0]!.text).toContain('Retry-After');
    expect(byStatus(429)[0]!.text).toContain('muchas fotos');
    expect(byStatus(408).length + byStatus(429).length).toBe(CONNECTIONS);
    expect(riseBytes).toBeLessThan(100 * MB);
    const metrics = await (await fetch(`${replica.url}/metrics`)).text();
    expect(metrics).toMatch(/^flow_upload_bytes_held\{[^}]*\} 0$/m);
    expect(metrics).toMatch(/^flow_uploads_refused_total\{[^}]*status="429"[^}]*\} \d+/m);
  });

  test('when an upload trickles below the minimum rate, then it is cut with 408 within two windows and the page says to find a steadier connection', async () => {
    const { session, csrf, cookie } = await atFaceOrDocumentStep();
    let trickle: NodeJS.Timeout | undefined;

    const answer = await rawRequest(replica.url, uploadHead(session.id, 2 * MB, cookie), {
      writeBody: (socket) => {
        socket.write(formStart(csrf, 'capture'));
        trickle = setInterval(() => socket.write(Buffer.alloc(100, 0x41)), 200);
      },
      timeoutMs: 10_000,
    }).finally(() => clearInterval(trickle));

    expect(answer.status).toBe(408);
    expect(answer.answeredAfterMs).toBeLessThan(3500);
    expect(answer.text).toContain('tardaba demasiado');
  });

  test('when a request’s headers trickle, then the connection is answered 408 at the headers timeout, not half a minute later', async () => {
    let trickle: NodeJS.Timeout | undefined;
    const answer = await rawRequest(replica.url, 'GET /healthz HTTP/1.1', {
      // The head's blank line never comes: one more header byte every 200 ms.
      writeBody: (socket) => {
        socket.write('X-Slow: ');
        trickle = setInterval(() => socket.write('a'), 200);
      },
      timeoutMs: 15_000,
      headOpen: true,
    }).finally(() => clearInterval(trickle));

    expect(answer.status).toBe(408);
    expect(answer.answeredAfterMs).toBeLessThan(5000);
  });
});
