import type { AccountId, ENDPOINT_STATUSES, WebhookEndpointId, WebhookEventType } from '@idv/contracts';

export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** A webhook endpoint as the service keeps it: its signing secrets sealed, its circuit shared by every replica. */
export interface EndpointRecord {
  id: WebhookEndpointId;
  accountId: AccountId;
  url: string;
  events: WebhookEventType[];
  status: EndpointStatus;
  description: string;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
  consecutiveFailures: number;
  circuitOpenUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface NewEndpoint {
  url: string;
  events: WebhookEventType[];
  description: string;
}

/** The fields an update replaces; those not sent keep their value. */
export interface EndpointPatch {
  url?: string;
  events?: WebhookEventType[];
  description?: string;
  status?: EndpointStatus;
}
