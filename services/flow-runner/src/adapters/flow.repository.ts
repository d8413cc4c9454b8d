import type { FlowConfig, Mode } from '@idv/contracts';
import { withTransaction, type Pool, type Queryable } from '@idv/kit';
import type { FlowState } from '../domain/engine';
import type { FlowRecord, FlowStatus, FlowStore, FlowTx } from '../domain/flow-service';
import type { Locale } from '../domain/i18n';
import type { OtpChannel, OtpRecord } from '../domain/steps';

interface FlowRow {
  session_id: string;
  account_id: string;
  mode: Mode;
  token_hash: string;
  binding_hash: string;
  csrf_token: string;
  config: FlowConfig;
  state: FlowState;
  status: FlowStatus;
  locale: Locale;
  updated_at: Date;
}

interface OtpRow {
  channel: OtpChannel;
  destination: string;
  code_hash: string;
  expires_at: Date;
  last_sent_at: Date;
  sends: number;
  attempts: number;
}

const toRecord = (row: FlowRow): FlowRecord => ({
  sessionId: row.session_id,
  accountId: row.account_id,
  mode: row.mode,
  tokenHash: row.token_hash,
  bindingHash: row.binding_hash,
  csrfToken: row.csrf_token,
  config: row.config,
  state: row.state,
  status: row.status,
  locale: row.locale,
  updatedAt: row.updated_at,
});

const toOtp = (row: OtpRow): OtpRecord => ({
  channel: row.channel,
  destination: row.destination,
  codeHash: row.code_hash,
  expiresAt: row.expires_at,
  lastSentAt: row.last_sent_at,
  sends: row.sends,
  attempts: row.attempts,
});

async function loadOtp(db: Queryable, sessionId: string, stepId: string): Promise<OtpRecord | null> {
  const { rows } = await db.query<OtpRow>('SELECT * FROM otp_codes WHERE session_id = $1 AND step_id = $2', [sessionId, stepId]);
  return rows[0] ? toOtp(rows[0]) : null;
}

async function saveOtp(db: Queryable, sessionId: string, stepId: string, otp: OtpRecord): Promise<void> {
  await db.query(
    `INSERT INTO otp_codes (session_id, step_id, channel, destination, code_hash, expires_at, last_sent_at, sends, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (session_id, step_id) DO UPDATE SET
       destination = EXCLUDED.destination, code_hash = EXCLUDED.code_hash, expires_at = EXCLUDED.expires_at,
       last_sent_at = EXCLUDED.last_sent_at, sends = EXCLUDED.sends, attempts = EXCLUDED.attempts`,
    [sessionId, stepId, otp.channel, otp.destination, otp.codeHash, otp.expiresAt, otp.lastSentAt, otp.sends, otp.attempts],
  );
}

/** The flow schema's repository: flows and their OTP codes (only hashes). */
export class PgFlowStore implements FlowStore {
  constructor(private readonly pool: Pool) {}

  async findByTokenHash(tokenHash: string): Promise<FlowRecord | null> {
    const { rows } = await this.pool.query<FlowRow>('SELECT * FROM flows WHERE token_hash = $1', [tokenHash]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async find(sessionId: string): Promise<FlowRecord | null> {
    const { rows } = await this.pool.query<FlowRow>('SELECT * FROM flows WHERE session_id = $1', [sessionId]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async insert(record: FlowRecord): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO flows (session_id, account_id, mode, token_hash, binding_hash, csrf_token, config, state, status, locale)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
      [
        record.sessionId,
        record.accountId,
        record.mode,
        record.tokenHash,
        record.bindingHash,
        record.csrfToken,
        JSON.stringify(record.config),
        JSON.stringify(record.state),
        record.status,
        record.locale,
      ],
    );
    return rowCount === 1;
  }

  loadOtp(sessionId: string, stepId: string): Promise<OtpRecord | null> {
    return loadOtp(this.pool, sessionId, stepId);
  }

  transact<T>(sessionId: string, work: (record: FlowRecord | null, tx: FlowTx) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<FlowRow>('SELECT * FROM flows WHERE session_id = $1 FOR UPDATE', [sessionId]);
      const tx: FlowTx = {
        save: async (record) => {
          await client.query(
            `UPDATE flows SET state = $2, status = $3, updated_at = now(),
                    resolved_at = CASE WHEN $3 <> 'active' THEN COALESCE(resolved_at, now()) END
              WHERE session_id = $1`,
            [record.sessionId, JSON.stringify(record.state), record.status],
          );
        },
        loadOtp: (id, stepId) => loadOtp(client, id, stepId),
        saveOtp: (id, stepId, otp) => saveOtp(client, id, stepId, otp),
      };
      return work(rows[0] ? toRecord(rows[0]) : null, tx);
    });
  }
}
