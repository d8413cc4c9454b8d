import type { AccountId, WebhookEndpointId } from '@idv/contracts';
import { notFound, type Pool } from '@idv/kit';
import { findEndpoint } from '../adapters/endpoints.repository';
import { countHours, rollUpHours, rolledUpHours } from '../adapters/health.repository';
import { HOUR_MS, endpointHealth, healthStart, type EndpointHealth, type HourCounts } from '../domain/health';

/** An hour is rolled up once it ended this long ago (attempts are logged by the statement that ends them). */
const ROLL_UP_GRACE_MS = 60_000;

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * The endpoint's health over 24 h and 7 days (a deleted endpoint's too). Closed hours come from the roll-up; the
 * first read that finds some missing rolls them up (from the earliest missing one on), and the hour under way is
 * counted from the log, so a read costs at most 168 short rows and an hour of attempts.
 */
export async function getEndpointHealth(
  deps: { pool: Pool },
  accountId: AccountId,
  endpointId: WebhookEndpointId,
  now = new Date(),
): Promise<EndpointHealth> {
  const { pool } = deps;
  if (!(await findEndpoint(pool, accountId, endpointId, { includeDeleted: true }))) throw notFound('webhook endpoint');
  const from = healthStart(now);
  const closedUntil = new Date(Math.max(from.getTime(), floorHour(now.getTime() - ROLL_UP_GRACE_MS)));
  const rolled = await rolledUpHours(pool, accountId, endpointId, { from, to: closedUntil });
  const have = new Set(rolled.map((hour) => hour.hour.getTime()));
  let firstMissing: number | null = null;
  for (let hour = from.getTime(); hour < closedUntil.getTime(); hour += HOUR_MS) {
    if (!have.has(hour)) {
      firstMissing = hour;
      break;
    }
  }
  const hours: HourCounts[] = [...rolled];
  if (firstMissing !== null) {
    const added = await rollUpHours(pool, accountId, endpointId, { from: new Date(firstMissing), to: closedUntil });
    hours.push(...added.filter((hour) => !have.has(hour.hour.getTime())));
    // Another read may have rolled up some of them at the same moment: those are read back.
    if (added.length < (closedUntil.getTime() - firstMissing) / HOUR_MS) {
      const again = await rolledUpHours(pool, accountId, endpointId, { from: new Date(firstMissing), to: closedUntil });
      const known = new Set(hours.map((hour) => hour.hour.getTime()));
      hours.push(...again.filter((hour) => !known.has(hour.hour.getTime())));
    }
  }
  const liveTo = new Date(floorHour(now.getTime()) + HOUR_MS);
  hours.push(...(await countHours(pool, accountId, endpointId, { from: closedUntil, to: liveTo })));
  return endpointHealth(now, hours);
}
