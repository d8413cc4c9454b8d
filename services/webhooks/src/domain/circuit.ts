/**
 * An endpoint's circuit as its owner reads it. `open`: automatic attempts are skipped until `openUntil`.
 * `half_open`: the period is over and the next attempt is a trial; a success closes the circuit, and it
 * takes a new run of failures (CIRCUIT_FAILURE_THRESHOLD) to open it again. `closed`: attempts go out.
 */
export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitView {
  state: CircuitState;
  openUntil: Date | null;
  consecutiveFailures: number;
}

export function circuitOf(endpoint: { circuitOpenUntil: Date | null; consecutiveFailures: number }, now: Date): CircuitView {
  const until = endpoint.circuitOpenUntil;
  return {
    state: until === null ? 'closed' : until.getTime() > now.getTime() ? 'open' : 'half_open',
    openUntil: until,
    consecutiveFailures: endpoint.consecutiveFailures,
  };
}
