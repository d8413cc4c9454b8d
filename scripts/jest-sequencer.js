/**
 * The order of the whole suite's files: longest first, so that the two workers finish together and a long
 * file that mostly waits on a service's clock (webhooks' retry schedule, the sessions timers) runs beside
 * the reading files that keep both cores busy, instead of alone at the end.
 *
 * jest's own sequencer orders by the durations it cached on this machine and, on a machine that never ran
 * the suite (every CI clone on a fresh runner), by file size, which put a 105 s wait last and made the run
 * a third longer (docs/testing.md "Order of the files"). The durations measured on this machine win; the
 * committed table (`scripts/test-durations.json`, written by `node scripts/test-durations.mjs` from a run's
 * report) stands in for those
 * not measured here yet, and a file in neither runs first, as jest does.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.join(__dirname, '..');
const TABLE = path.join(__dirname, 'test-durations.json');

function committedDurations() {
  try {
    return JSON.parse(fs.readFileSync(TABLE, 'utf8')).milliseconds;
  } catch {
    return {};
  }
}

class LongestFirst extends Sequencer {
  committed = committedDurations();

  time(test) {
    return super.time(test) ?? this.committed[path.relative(ROOT, test.path)];
  }
}

module.exports = LongestFirst;
