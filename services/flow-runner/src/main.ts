// First: starts tracing (when configured) before the modules it instruments are loaded.
import './tracing';
import path from 'node:path';
import {
  AddressThrottle,
  ClientAddresses,
  DAY,
  HOUR,
  MINUTE,
  connectBroker,
  createRedis,
  openDatabase,
  runMain,
  smtpOptionsFrom,
  startOutboxRelay,
  startRuntime,
} from '@idv/kit';
import { PgArtefactStore } from './adapters/artefact.store';
import { instrumentVerificationJobs } from './jobs/verification-job-metrics';
import { PgEvidenceRepository } from './adapters/evidence.repository';
import { EngineUploadPorts } from './adapters/upload-ports';
import { FacePool } from './adapters/face-pool';
import { verificationMetrics } from './adapters/verification-metrics';
import { FaceSampleCatalog } from './adapters/face-samples';
import { ChannelCodeSender, SmtpMailer, WhatsappSender } from './adapters/code-sender';
import { RetentionRepository } from './adapters/retention.repository';
import { RetentionSweeper } from './jobs/retention';
import { SampleCatalog } from './adapters/samples';
import { SampleSignatures } from './adapters/sample-signatures';
import { VerificationPool } from './adapters/verification-pool';
import { PgFlowStore } from './adapters/flow.repository';
import { RegistryClient } from './adapters/registry.client';
import { RegistryCheckRunner } from './jobs/registry-checks';
import { RegistryChecksRepository } from './adapters/registry-checks.repository';
import { PgTimeline } from './adapters/timeline.repository';
import { PgSessionCaptures } from './adapters/session-captures.repository';
import { SessionsClient } from './adapters/sessions.client';
import { createApp } from './app';
import { artefactKeyring, evidenceLinkKey, faceKeyFrameKey, readConfig, secureCookies } from './config';
import { DATABASE_SCHEMA } from './schema';
import { EvidenceSigner } from './domain/evidence';
import { EvidenceLinks } from './use-cases/evidence';
import { FlowService } from './use-cases/flow-service';
import { FlowTimelines } from './use-cases/timeline';
import { SessionCaptureReader } from './use-cases/session-captures';
import { OTP_RULES } from './domain/steps/otp';
import { EVIDENCE_DOWNLOAD_THROTTLE } from './http/evidence';
import { UploadBudget } from './http/upload-budget';
import { flowRunnerJobs } from './jobs';

const MIB = 1024 * 1024;

const SERVICE = 'flow-runner';
const SCHEMA = DATABASE_SCHEMA.schema;

runMain(SERVICE, async () => {
  const config = readConfig();
  const runtime = startRuntime(SERVICE, config);
  const { logger, metrics, lifecycle } = runtime;
  const pool = await openDatabase(runtime, {
    url: config.DATABASE_URL,
    ...DATABASE_SCHEMA,
    max: config.DATABASE_POOL_MAX,
  });
  const artefacts = new PgArtefactStore(pool, artefactKeyring(config));
  const verification =
    config.VERIFICATION_THREADS > 0
      ? new VerificationPool({
          threads: config.VERIFICATION_THREADS,
          maxHeapMb: config.VERIFICATION_MAX_HEAP_MB,
          youngGenerationMb: config.VERIFICATION_YOUNG_GENERATION_MB,
        })
      : null;
  if (verification) lifecycle.onStop('verification-pool', () => verification.close());
  const facePool =
    config.FACE_THREADS > 0
      ? new FacePool({
          threads: config.FACE_THREADS,
          maxHeapMb: config.FACE_MAX_HEAP_MB,
          youngGenerationMb: config.FACE_YOUNG_GENERATION_MB,
          keyFrameKey: faceKeyFrameKey(config),
        })
      : null;
  if (facePool) lifecycle.onStop('face-pool', () => facePool.close());
  const work = verificationMetrics(metrics, { verification, face: facePool });
  const broker = connectBroker(runtime, { url: config.AMQP_URL, namespace: config.BROKER_NAMESPACE });
  await startOutboxRelay(runtime, { pool, broker, schema: SCHEMA });

  const sessions = new SessionsClient(config.SESSIONS_URL, config.INTERNAL_TOKEN, config.OUTBOUND_TIMEOUT_MS);
  lifecycle.onStop('sessions-client', () => sessions.close());
  const validityMinutes = Math.max(1, Math.round((OTP_RULES.validityMs * config.TIME_SCALE) / 60_000));
  const mailer = new SmtpMailer(smtpOptionsFrom(config, config.OUTBOUND_TIMEOUT_MS), validityMinutes);
  lifecycle.onStop('smtp', () => mailer.close());
  const whatsapp = new WhatsappSender({
    apiUrl: config.WHATSAPP_API_URL,
    phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
    token: config.WHATSAPP_TOKEN,
    templateName: config.WHATSAPP_TEMPLATE_NAME,
    templateLanguage: config.WHATSAPP_TEMPLATE_LANGUAGE,
    timeoutMs: config.OUTBOUND_TIMEOUT_MS,
  });
  lifecycle.onStop('whatsapp', () => whatsapp.close());

  const codesSent = metrics.counter('flow_codes_sent_total', 'Verification codes handed to a provider', [
    'channel',
    'result',
  ] as const);
  const resolved = metrics.counter('flow_sessions_resolved_total', 'Flows finished, by outcome', ['outcome'] as const);
  const registry =
    config.REGISTRY_URL && config.REGISTRY_TOKEN
      ? new RegistryClient({ url: config.REGISTRY_URL, token: config.REGISTRY_TOKEN, timeoutMs: config.REGISTRY_TIMEOUT_MS })
      : null;
  if (registry) lifecycle.onStop('registry', () => registry.close());
  else logger.warn('no registry configured (REGISTRY_URL): document steps with registryCheck are rejected');
  let registryRunner: RegistryCheckRunner | null = null;
  const samplesDir = config.SAMPLES_DIR ?? path.join(__dirname, '..', 'assets', 'samples');
  const samples = new SampleCatalog(samplesDir);
  // Beside the document samples, not inside: scripts/build-samples.mjs rebuilds that folder from scratch.
  const faceSamples = new FaceSampleCatalog(path.join(samplesDir, '..', 'face-samples'));
  // Built with the samples (scripts/build-sample-signatures.mjs): live mode refuses captures that are samples.
  const sampleSignatures = new SampleSignatures(path.join(samplesDir, '..', 'sample-signatures.json'));
  if (sampleSignatures.size === 0) logger.warn('no test-mode sample signatures: live mode cannot refuse the public samples');
  const flows = new FlowService({
    store: new PgFlowStore(pool, artefacts),
    uploads: new EngineUploadPorts(samples, faceSamples, sampleSignatures),
    readings: artefacts,
    sessions,
    sender: new ChannelCodeSender(mailer, whatsapp, logger, { inc: (labels) => codesSent.inc(labels) }),
    timeScale: config.TIME_SCALE,
    retentionDays: config.ARTEFACT_RETENTION_DAYS,
    onResolved: (outcome) => resolved.inc({ outcome }),
    registryRetryWindowMs: config.REGISTRY_RETRY_HOURS * HOUR * config.TIME_SCALE,
    onRegistryCheckScheduled: () => registryRunner?.wake(),
  });
  registryRunner = new RegistryCheckRunner(
    { checks: new RegistryChecksRepository(pool), flows, registry, sessions, logger, metrics },
    { timeScale: config.TIME_SCALE, timeoutMs: config.REGISTRY_TIMEOUT_MS },
  );
  await registryRunner.start();
  const runner = registryRunner;
  lifecycle.onStop('registry-checks', () => runner.stop());

  const jobs = flowRunnerJobs({
    artefacts,
    core: flows.core,
    logger,
    metrics: work,
    reader: verification ? { port: verification, threads: config.VERIFICATION_THREADS } : null,
    faces: facePool,
  });
  for (const job of instrumentVerificationJobs(metrics, broker, jobs)) await broker.consume(job);
  const sweeper = new RetentionSweeper(
    { artefacts, retention: new RetentionRepository(pool), logger, metrics },
    {
      retentionMs: config.ARTEFACT_RETENTION_DAYS * DAY,
      auditRetentionMs: config.EVIDENCE_DOWNLOAD_RETENTION_DAYS * DAY,
      intervalMs: MINUTE,
    },
  );
  await sweeper.start();
  lifecycle.onStop('retention-sweeper', () => sweeper.stop());

  const redis = createRedis(config.REDIS_URL);
  lifecycle.onStop('redis', async () => {
    await redis.quit().catch(() => undefined);
  });
  const throttle = new AddressThrottle(
    redis,
    {
      link_open: { perSecond: config.THROTTLE_LINK_OPENS_PER_SECOND, burst: config.THROTTLE_LINK_OPENS_BURST },
      [EVIDENCE_DOWNLOAD_THROTTLE]: {
        perSecond: config.THROTTLE_EVIDENCE_DOWNLOADS_PER_SECOND,
        burst: config.THROTTLE_EVIDENCE_DOWNLOADS_BURST,
      },
    },
    { logger, metrics },
  );

  const app = createApp({
    pool,
    flows,
    throttle,
    clientAddresses: new ClientAddresses(config.TRUSTED_PROXIES),
    logger,
    metrics,
    secureCookies: secureCookies(config),
    publicBaseUrl: config.FLOW_BASE_URL,
    uploads: {
      budget: new UploadBudget({
        processBytes: config.UPLOAD_MEMORY_MB * MIB,
        addressBytes: config.UPLOAD_MEMORY_PER_ADDRESS_MB * MIB,
      }),
      minBytesPerSecond: config.UPLOAD_MIN_BYTES_PER_SECOND,
      rateWindowMs: config.UPLOAD_RATE_WINDOW_MS,
    },
    isShuttingDown: () => lifecycle.shuttingDown,
    evidence: {
      links: new EvidenceLinks(
        {
          port: new PgEvidenceRepository(pool, artefacts),
          signer: new EvidenceSigner(evidenceLinkKey(config)),
          publicBaseUrl: config.FLOW_BASE_URL,
        },
        { timeScale: config.TIME_SCALE },
      ),
      internalToken: config.INTERNAL_TOKEN,
    },
    timelines: new FlowTimelines({ timeline: new PgTimeline(pool), sessions }),
    captures: new SessionCaptureReader({ captures: new PgSessionCaptures(pool, artefacts), sessions }),
  });
  await lifecycle.listen(app, config.PORT, config.HOST, {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
  });
  return lifecycle;
});
