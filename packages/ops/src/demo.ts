import { EMITTED_SESSION_EVENT_TYPES, type FlowConfig } from '@idv/contracts';
import { randomBytes } from 'node:crypto';
import type { OpsClient } from './client';

/** The demo flow: consent, then a choice of e-mail or WhatsApp code, then a short form. */
export const DEMO_CONFIG = {
  steps: [
    {
      id: 'contact',
      type: 'choice',
      min: 1,
      options: [
        { id: 'mail', type: 'otp_email' },
        { id: 'phone', type: 'otp_whatsapp' },
      ],
    },
    {
      id: 'extra',
      type: 'form',
      fields: [
        { name: 'occupation', type: 'text', label: 'Ocupación', required: true },
        { name: 'pep', type: 'checkbox', label: 'Soy persona expuesta políticamente' },
      ],
    },
  ],
  options: {
    documentData: false,
    verifiedChannels: true,
    formData: true,
    evidenceLinks: false,
    webhookEvents: [...EMITTED_SESSION_EVENT_TYPES],
  },
} as unknown as FlowConfig;

export async function createDemo(ops: OpsClient, tokens = 100) {
  const account = await ops.createAccount({ name: 'Demo S.A.', email: 'demo@example.com' });
  await ops.approveAccount(account.id);
  const testKey = await ops.createKey({ account_id: account.id, mode: 'test', name: 'demo test key' });
  const liveKey = await ops.createKey({ account_id: account.id, mode: 'live', name: 'demo live key' });
  let project: { id: string } | null = null;
  let balance: number | null = null;
  try {
    project = await ops.createProject({ account_id: account.id, name: 'Demo project' });
    await ops.publishConfig(project.id, 'test', DEMO_CONFIG);
    await ops.publishConfig(project.id, 'live', DEMO_CONFIG);
    balance = (await ops.creditBalance(account.id, tokens)).balance;
  } catch (error) {
    // The sessions service may not be running (keys and gateway alone still make a usable demo).
    process.stderr.write(`demo: projects and balance skipped: ${(error as Error).message}\n`);
  }
  // The dashboard's owner of the demo account: an address of this account's own, so a second demo does not
  // collide with the first, and a password drawn here and printed once.
  let owner: { email: string; password: string } | null = null;
  try {
    const credentials = {
      email: `owner-${account.id.slice(-10).toLowerCase()}@demo.example`,
      password: randomBytes(12).toString('base64url'),
    };
    await ops.createAccountOwner(account.id, { ...credentials, name: 'Demo owner' });
    owner = credentials;
  } catch (error) {
    process.stderr.write(`demo: dashboard owner skipped: ${(error as Error).message}\n`);
  }
  return {
    account_id: account.id,
    dashboard_owner: owner,
    status: 'active' as const,
    project_id: project?.id ?? null,
    test_key: { id: testKey.id, secret: testKey.secret },
    live_key: { id: liveKey.id, secret: liveKey.secret },
    balance,
  };
}
