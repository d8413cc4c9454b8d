import amqp from 'amqplib';
import type { DomainEvent } from '@idv/contracts';
import { BrokerMetrics, type QueueStats, type SettleOutcome } from './broker-metrics';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { scrapeRead } from './scrape-read';
import { sleep } from './time';

/**
 * An event as the transport carries it (outbox, broker): routed by `type`, `data` never read. Services
 * publish `DomainEvent`s built by the contracts' constructors; the transport takes any envelope.
 */
export type EventEnvelope = { id: string; type: string; occurred_at: string; data: unknown };

export type HandlerOutcome = 'ack' | 'retry' | 'dead';

export interface ConsumerSpec {
  /** Queue name without namespace; `exclusive` queues get a unique name per connection. */
  queue: string;
  bindings: string[];
  prefetch?: number;
  /** A queue of this process alone (e.g. cache invalidation of one gateway replica). */
  exclusive?: boolean;
  handler: (event: DomainEvent, raw: amqp.ConsumeMessage) => Promise<HandlerOutcome>;
  /** Runs each time the consumer (re)starts, e.g. to drop a cache that may have missed events. */
  onStart?: () => void;
  /** Handlings of one message that may fail (`retry` or a throw) before it is dead-lettered. */
  maxAttempts?: number;
  /** Wait before the first retry; doubles each time, up to 30 s. */
  retryDelayMs?: number;
}

const DEFAULT_MAX_ATTEMPTS = 10;
const DEFAULT_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;
/** A message nacked without requeue: dead-lettered, or dropped from an exclusive queue (it has no dead-letter queue). */
function deadLettered(spec: ConsumerSpec): SettleOutcome {
  return spec.exclusive ? 'reject' : 'dead_letter';
}

/** How many times a message was handled and failed, carried on the copy that is queued again. */
const ATTEMPTS_HEADER = 'x-idv-attempts';

export interface BrokerOptions {
  url: string;
  /** Prefix of every exchange and queue, so several stacks can share one broker (tests, tenants). */
  namespace: string;
  logger: Logger;
  /** Consumer metrics and the broker's queue counts at scrape (broker-metrics.ts). */
  metrics?: Metrics;
}

/**
 * RabbitMQ through amqplib: one connection, a confirm channel for publishing, one channel per
 * consumer; reconnects with backoff and re-declares its topology and consumers on every connect.
 */
export class Broker {
  private connection: amqp.ChannelModel | null = null;
  private publishChannel: amqp.ConfirmChannel | null = null;
  private readonly consumers: ConsumerSpec[] = [];
  private readonly consumerChannels = new Map<ConsumerSpec, { channel: amqp.Channel; tag: string }>();
  private readonly startingConsumers = new Set<ConsumerSpec>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private closing = false;
  private connecting: Promise<void> | null = null;
  private readonly instruments: BrokerMetrics | null;
  /** A channel of its own for `checkQueue`: a failed check closes that channel only, never the connection. */
  private statsChannel: Promise<amqp.Channel> | null = null;
  private readonly readQueueStats = scrapeRead(() => this.checkQueues(), { timeoutMs: 1000 });

  constructor(private readonly options: BrokerOptions) {
    this.instruments = options.metrics ? new BrokerMetrics(options.metrics, () => this.queueStats()) : null;
  }

  /**
   * The broker's count of each queue this process consumes and of its dead-letter queue (`<queue>.dead`),
   * by queue name without the namespace; null when the broker did not answer within a second.
   */
  queueStats(): Promise<Map<string, QueueStats> | null> {
    return this.readQueueStats();
  }

  private async checkQueues(): Promise<Map<string, QueueStats>> {
    const connection = this.connection;
    if (!connection) throw new Error('broker not connected');
    this.statsChannel ??= connection.createChannel().then((channel) => {
      const forget = () => {
        this.statsChannel = null;
      };
      channel.on('error', forget);
      channel.on('close', forget);
      return channel;
    });
    const channel = await this.statsChannel.catch((error: unknown) => {
      this.statsChannel = null;
      throw error;
    });
    const stats = new Map<string, QueueStats>();
    for (const spec of this.consumers) {
      if (spec.exclusive) continue;
      for (const queue of [spec.queue, `${spec.queue}.dead`]) {
        const { messageCount, consumerCount } = await channel.checkQueue(`${this.options.namespace}.${queue}`);
        stats.set(queue, { ready: messageCount, consumers: consumerCount });
      }
    }
    return stats;
  }

  get exchange(): string {
    return `${this.options.namespace}.events`;
  }

  private get deadLetterExchange(): string {
    return `${this.options.namespace}.dead-letter`;
  }

  isConnected(): boolean {
    return this.connection !== null && this.publishChannel !== null;
  }

  check(): Promise<void> {
    return this.isConnected() ? Promise.resolve() : Promise.reject(new Error('broker not connected'));
  }

  /** Connects (retrying until it succeeds or the broker is closed) and keeps reconnecting after. */
  start(): Promise<void> {
    this.connecting ??= this.connectLoop().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connectLoop(): Promise<void> {
    let delay = 250;
    while (!this.closing) {
      try {
        await this.connect();
        return;
      } catch (error) {
        this.options.logger.warn({ err: error, retryInMs: delay }, 'broker connection failed');
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  private async connect(): Promise<void> {
    const connection = await amqp.connect(this.options.url, { clientProperties: { connection_name: this.options.namespace } });
    connection.on('error', (error: unknown) => this.options.logger.warn({ err: error }, 'broker connection error'));
    connection.on('close', () => {
      this.connection = null;
      this.publishChannel = null;
      this.statsChannel = null;
      this.consumerChannels.clear();
      if (!this.closing) {
        this.options.logger.warn('broker connection closed; reconnecting');
        void this.start();
      }
    });
    const channel = await connection.createConfirmChannel();
    channel.on('error', (error: unknown) => this.options.logger.warn({ err: error }, 'broker channel error'));
    await channel.assertExchange(this.exchange, 'topic', { durable: true });
    await channel.assertExchange(this.deadLetterExchange, 'topic', { durable: true });
    this.connection = connection;
    this.publishChannel = channel;
    for (const spec of this.consumers) await this.startConsumer(spec);
    this.options.logger.info('broker connected');
  }

  /** Publishes and resolves only once the broker confirmed the message is stored. */
  async publish(event: EventEnvelope): Promise<void> {
    const channel = this.publishChannel;
    if (!channel) throw new Error('broker not connected');
    await new Promise<void>((resolve, reject) => {
      channel.publish(
        this.exchange,
        event.type,
        Buffer.from(JSON.stringify(event)),
        { persistent: true, messageId: event.id, type: event.type, contentType: 'application/json', timestamp: Date.now() },
        (error: unknown) => (error ? reject(error instanceof Error ? error : new Error('publish not confirmed')) : resolve()),
      );
    });
  }

  async consume(spec: ConsumerSpec): Promise<void> {
    this.consumers.push(spec);
    if (this.connection) await this.startConsumer(spec);
  }

  private async startConsumer(spec: ConsumerSpec): Promise<void> {
    const connection = this.connection;
    // consume() and a (re)connect can both try to start the same consumer: start it once.
    if (!connection || this.consumerChannels.has(spec) || this.startingConsumers.has(spec)) return;
    this.startingConsumers.add(spec);
    try {
      await this.openConsumer(connection, spec);
    } finally {
      this.startingConsumers.delete(spec);
    }
  }

  private async openConsumer(connection: amqp.ChannelModel, spec: ConsumerSpec): Promise<void> {
    const channel = await connection.createChannel();
    channel.on('error', (error: unknown) =>
      this.options.logger.warn({ err: error, queue: spec.queue }, 'consumer channel error'),
    );
    await channel.prefetch(spec.prefetch ?? 16);
    const name = spec.exclusive ? '' : `${this.options.namespace}.${spec.queue}`;
    const deadQueue = `${this.options.namespace}.${spec.queue}.dead`;
    if (!spec.exclusive) {
      await channel.assertQueue(deadQueue, { durable: true });
      await channel.bindQueue(deadQueue, this.deadLetterExchange, spec.queue);
    }
    const { queue } = await channel.assertQueue(name, {
      durable: !spec.exclusive,
      exclusive: spec.exclusive ?? false,
      autoDelete: spec.exclusive ?? false,
      ...(spec.exclusive ? {} : { deadLetterExchange: this.deadLetterExchange, deadLetterRoutingKey: spec.queue }),
    });
    for (const binding of spec.bindings) await channel.bindQueue(queue, this.exchange, binding);
    const { consumerTag } = await channel.consume(queue, (message) => {
      if (!message) return;
      const work = this.handle(spec, channel, queue, message);
      this.inFlight.add(work);
      void work.finally(() => this.inFlight.delete(work));
    });
    this.consumerChannels.set(spec, { channel, tag: consumerTag });
    spec.onStart?.();
  }

  private async handle(spec: ConsumerSpec, channel: amqp.Channel, queue: string, message: amqp.ConsumeMessage): Promise<void> {
    this.instruments?.delivered(spec.queue, message.fields.redelivered);
    let settled: SettleOutcome | null = null;
    let outcome: HandlerOutcome;
    try {
      const event = JSON.parse(message.content.toString('utf8')) as DomainEvent;
      if (typeof event?.id !== 'string' || typeof event.type !== 'string') throw new SyntaxError('not an event envelope');
      outcome = await spec.handler(event, message);
    } catch (error) {
      outcome = error instanceof SyntaxError ? 'dead' : 'retry';
      this.options.logger.error({ err: error, queue: spec.queue }, 'message handling failed');
    }
    try {
      if (outcome === 'ack') channel.ack(message);
      else if (outcome === 'dead') channel.nack(message, false, false);
      else settled = await this.retryLater(spec, channel, queue, message);
      if (outcome !== 'retry') settled = outcome === 'ack' ? 'ack' : deadLettered(spec);
    } catch (error) {
      // The channel closed under us: the broker redelivers the unacked message after reconnect.
      this.options.logger.warn({ err: error, queue: spec.queue }, 'could not settle message');
    } finally {
      this.instruments?.settled(spec.queue, settled);
    }
  }

  /**
   * A failed message goes back to its queue as a copy that counts the attempts (a plain requeue
   * counts nothing and would loop forever), after a growing wait so a failing dependency is not
   * hammered; once the attempts run out it is dead-lettered for an operator to look at.
   */
  private async retryLater(
    spec: ConsumerSpec,
    channel: amqp.Channel,
    queue: string,
    message: amqp.ConsumeMessage,
  ): Promise<SettleOutcome> {
    const headers = message.properties.headers ?? {};
    const attempts = Number(headers[ATTEMPTS_HEADER] ?? 0) + 1;
    const maxAttempts = spec.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (attempts >= maxAttempts) {
      this.options.logger.error(
        { queue: spec.queue, messageId: message.properties.messageId as string | undefined, attempts },
        'message failed every attempt; dead-lettered',
      );
      channel.nack(message, false, false);
      return deadLettered(spec);
    }
    const delay = Math.min(MAX_RETRY_DELAY_MS, (spec.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS) * 2 ** (attempts - 1));
    await sleep(delay);
    const publisher = this.publishChannel;
    if (!publisher) {
      channel.nack(message, false, true);
      return 'requeue';
    }
    try {
      await new Promise<void>((resolve, reject) => {
        publisher.sendToQueue(
          queue,
          message.content,
          {
            persistent: true,
            headers: { ...headers, [ATTEMPTS_HEADER]: attempts },
            messageId: message.properties.messageId as string | undefined,
            type: message.properties.type as string | undefined,
            contentType: message.properties.contentType as string | undefined,
            timestamp: message.properties.timestamp as number | undefined,
          },
          (error: unknown) => (error ? reject(error instanceof Error ? error : new Error('requeue not confirmed')) : resolve()),
        );
      });
    } catch (error) {
      // Not stored again: leave the original to the broker rather than lose it.
      this.options.logger.warn({ err: error, queue: spec.queue }, 'could not queue a retry; requeueing as is');
      channel.nack(message, false, true);
      return 'requeue';
    }
    channel.ack(message);
    return 'requeue';
  }

  /** Stops consuming, waits for handlers under way, then closes the connection. */
  async close(): Promise<void> {
    this.closing = true;
    for (const { channel, tag } of this.consumerChannels.values()) {
      await channel.cancel(tag).catch(() => undefined);
    }
    await Promise.allSettled([...this.inFlight]);
    // Closing each channel waits for the broker's close-ok, so the acks sent just before are applied;
    // closing the connection alone can drop them and the messages would be redelivered.
    for (const { channel } of this.consumerChannels.values()) await channel.close().catch(() => undefined);
    this.consumerChannels.clear();
    const stats = await this.statsChannel?.catch(() => null);
    await stats?.close().catch(() => undefined);
    await this.publishChannel?.close().catch(() => undefined);
    const connection = this.connection;
    this.connection = null;
    this.publishChannel = null;
    if (connection) await connection.close().catch(() => undefined);
  }
}
