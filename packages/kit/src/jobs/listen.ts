import pg from 'pg';
import type { Logger } from '../logger';

/**
 * Where a job hears that work arrived: a PostgreSQL channel, on a connection of its own (a pooled one
 * held for the job's life, or a client to `url` outside any pool). `payload`, when given, must match:
 * the channel is shared by the schemas of one database.
 */
export interface ListenOptions {
  channel: string;
  payload?: string;
  pool?: pg.Pool;
  url?: string;
}

interface Connection {
  client: pg.ClientBase;
  close: () => Promise<void>;
}

/** One LISTEN connection; `open` again after it was lost. A failure to open leaves the job polling. */
export class NotifyListener {
  private connection: Connection | null = null;

  constructor(
    private readonly options: ListenOptions,
    private readonly onNotify: () => void,
    private readonly logger: Logger,
    private readonly job: string,
  ) {}

  get listening(): boolean {
    return this.connection !== null;
  }

  async open(): Promise<void> {
    if (this.connection) return;
    let connection: Connection | null = null;
    try {
      connection = await this.connect();
      const { client } = connection;
      client.on('notification', (message) => {
        if (message.channel !== this.options.channel) return;
        if (this.options.payload !== undefined && message.payload !== this.options.payload) return;
        this.onNotify();
      });
      client.on('error', (error) => {
        this.logger.warn({ err: error, job: this.job }, 'job listener lost; polling until it reconnects');
        if (this.connection === connection) this.connection = null;
        connection?.close().catch(() => undefined);
      });
      await client.query(`LISTEN ${this.options.channel}`);
      this.connection = connection;
    } catch (error) {
      this.logger.warn({ err: error, job: this.job }, 'job listener unavailable; polling only');
      await connection?.close().catch(() => undefined);
    }
  }

  private async connect(): Promise<Connection> {
    if (this.options.pool) {
      const client = await this.options.pool.connect();
      let released = false;
      return {
        client,
        close: async () => {
          if (released) return;
          released = true;
          await client.query(`UNLISTEN ${this.options.channel}`).catch(() => undefined);
          client.release(true);
        },
      };
    }
    if (!this.options.url) throw new Error('a job listener needs a pool or a url');
    const client = new pg.Client({ connectionString: this.options.url, application_name: `${this.job}-listener` });
    await client.connect();
    return { client, close: () => client.end() };
  }

  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    await connection?.close().catch(() => undefined);
  }
}
