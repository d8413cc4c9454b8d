// First: starts tracing (when configured) before the modules it instruments are loaded.
import './tracing';
import { idPattern } from '@idv/contracts';
import {
  DAY,
  connectBroker,
  cursorCodec,
  EvidenceLinksClient,
  isoTimestampTypes,
  openDatabase,
  runMain,
  startOutboxRelay,
  startRuntime,
} from '@idv/kit';
import { createApp } from './app';
import { readConfig } from './config';
import { DATABASE_SCHEMA } from './schema';
import { SessionEvidence } from './use-cases/evidence-links';
import { SessionsService } from './use-cases/sessions.service';
import { TimerSweeper } from './jobs/timer-sweeper';
import { LedgerAudit } from './jobs/ledger-audit';

const SERVICE = 'sessions';
const SCHEMA = DATABASE_SCHEMA.schema;

runMain(SERVICE, async () => {
  const config = readConfig();
  const runtime = startRuntime(SERVICE, config);
  const { logger, metrics, lifecycle } = runtime;
  const pool = await openDatabase(runtime, {
    url: config.DATABASE_URL,
    ...DATABASE_SCHEMA,
    max: config.DATABASE_POOL_MAX,
    // Timestamps keep the ISO text they were read as: a list sends each without formatting it again (issue 43).
    types: isoTimestampTypes,
  });
  const broker = connectBroker(runtime, { url: config.AMQP_URL, namespace: config.BROKER_NAMESPACE });
  await startOutboxRelay(runtime, { pool, broker, schema: SCHEMA });

  const service = new SessionsService({
    pool,
    metrics,
    timeScale: config.TIME_SCALE,
    bases: { publicBaseUrl: config.PUBLIC_BASE_URL, flowBaseUrl: config.FLOW_BASE_URL },
    cursors: cursorCodec({ secret: config.INTERNAL_TOKEN, purpose: 'verification-sessions', idPattern: idPattern('session') }),
  });

  const sweeper = new TimerSweeper({
    pool,
    service,
    logger,
    metrics,
    timeScale: config.TIME_SCALE,
    documentRetentionMs: config.ARTEFACT_RETENTION_DAYS * DAY,
    ...(config.SWEEP_INTERVAL_MS ? { intervalMs: config.SWEEP_INTERVAL_MS } : {}),
  });
  await sweeper.start();
  lifecycle.onStop('timer-sweeper', () => sweeper.stop());
  const ledgerAudit = new LedgerAudit({ pool, logger, metrics });
  await ledgerAudit.start();
  lifecycle.onStop('ledger-audit', () => ledgerAudit.stop());

  const app = createApp({
    pool,
    broker,
    logger,
    metrics,
    service,
    evidence: new SessionEvidence({
      config: (projectId, version) => service.config(pool, projectId, version),
      source: new EvidenceLinksClient(config.FLOW_URL, config.INTERNAL_TOKEN, config.EVIDENCE_LINKS_TIMEOUT_MS),
      logger,
    }),
    internalToken: config.INTERNAL_TOKEN,
    isShuttingDown: () => lifecycle.shuttingDown,
  });
  await lifecycle.listen(app, config.PORT, config.HOST);
  return lifecycle;
});
