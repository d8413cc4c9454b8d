// How a benchmark hands its figures to the load report (bench/report/run.mjs): when BENCH_RESULT_FILE is set,
// the benchmark writes them there as JSON; BENCH_NO_WRITE=1 keeps it from rewriting its figures in docs/.
import { writeFileSync } from 'node:fs';

export function reportResult(figures) {
  const file = process.env.BENCH_RESULT_FILE;
  if (file) writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
}

/** Whether the benchmark may write its figures into docs/ (not when the load report runs it). */
export const writesDocs = () => process.env.BENCH_NO_WRITE !== '1';
