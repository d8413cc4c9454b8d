// Preloaded with `--require` into a service when the bench runs with --profile (Node 20 refuses
// --cpu-prof in NODE_OPTIONS): records a V8 CPU profile and writes it to $BENCH_CPU_PROFILE_DIR at exit.
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 100 });
  session.post('Profiler.start');
  process.once('exit', () => {
    // A same-thread inspector session answers synchronously, so this runs before the process ends.
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `gateway-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
