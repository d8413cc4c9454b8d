import type { Mode } from '@idv/contracts';
import { signedInOwner, type Dashboard } from './harness';

/**
 * A signed-in owner (`signedInOwner`) of an approved account with one project whose flow `config` is published in
 * each mode of `keys`, `tokens` credited when given, and an API key of each of those modes named as `keys` says
 * (their secrets create sessions over the public API).
 */
export async function approvedAccount(
  dashboard: Dashboard,
  label: string,
  options: {
    config: object;
    keys: Partial<Record<Mode, string>>;
    tokens?: { count: number; reason: string };
    projectName?: string;
  },
) {
  const owner = await signedInOwner(dashboard, label);
  await dashboard.platform.call('approveAccount', { id: owner.accountId });
  const project = await dashboard.platform.call(
    'createProject',
    {},
    { account_id: owner.accountId, name: options.projectName ?? 'Altas' },
  );
  const modes = Object.keys(options.keys) as Mode[];
  for (const mode of modes) {
    await dashboard.platform.call('publishConfig', { id: project.id }, { mode, config: options.config });
  }
  if (options.tokens) {
    await dashboard.platform.call(
      'creditBalance',
      { id: owner.accountId },
      { tokens: options.tokens.count, reason: options.tokens.reason },
    );
  }
  const keys: Partial<Record<Mode, string>> = {};
  for (const mode of modes) {
    const key = await dashboard.platform.call(
      'createApiKey',
      {},
      { account_id: owner.accountId, mode, name: options.keys[mode]! },
    );
    keys[mode] = key.secret;
  }
  return { owner, project, keys };
}
