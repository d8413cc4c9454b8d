import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressThrottle, ClientAddresses, Logger } from '@idv/kit';
import type { Locale } from '../domain/i18n';
import type { FlowService } from '../use-cases/flow-service';
import type { UploadBudget } from './upload-budget';

export interface UploadOptions {
  /** The bytes of uploads held in memory, per process and per client address. */
  budget: UploadBudget;
  minBytesPerSecond: number;
  rateWindowMs: number;
}

/** What every page action may use: the use cases, the throttle, the upload bounds, its counters. */
export interface PageContext {
  flows: FlowService;
  logger: Logger;
  secureCookies: boolean;
  /** Link opens per client address (`link_open`): guessing tokens meets a limit. */
  throttle: AddressThrottle;
  clientAddresses: ClientAddresses;
  /** The person's flow host (FLOW_BASE_URL) without a trailing slash: hand-over codes point at `${baseUrl}/h/…`. */
  baseUrl: string;
  uploads: UploadOptions;
  counters: {
    handovers: { inc(labels: { outcome: string }): void };
    uploadsRefused: { inc(labels: { status: string }): void };
    submissions: { observe(labels: { result: string }, seconds: number): void };
  };
}

/** One request to a page, with the path's parameters (as sent, not decoded) and the page's language. */
export interface PageRequest {
  req: IncomingMessage;
  res: ServerResponse;
  params: Partial<Record<string, string>>;
  locale: Locale;
}

/** Answers the request when it is one of its pages; false leaves it to the service's express app. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** One page action: a row of the page table (`routes.ts`). */
export type PageAction = (ctx: PageContext, request: PageRequest) => Promise<void> | void;
