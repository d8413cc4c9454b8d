import { releaseDescreenPlans } from './image/descreen';
import { startQualityThread, stopQualityThread } from './pipeline/quality-thread';
import { releaseSpectrumPlans } from './quality/spectrum';
import { startOcr, stopOcr } from './readers/ocr';
import { loadBarcodeModule } from './readers/zxing';

/**
 * Every engine @idv/verification runs, started and stopped in one place. Each lives per thread (a reading
 * worker of the service's pool, a CLI, a test): the two tesseract workers (legacy and LSTM, threads of
 * their own), the zxing wasm module, the FFT plans and buffers of the recapture spectrum and the
 * descreen, and the quality helper thread. Each starts by itself on first use; `startEngines` pays for
 * them ahead (so no person's first photo does), `stopEngines` ends the threads and drops the plans (a
 * CLI or a test before it exits, a worker before it ends); anything used after a stop starts again.
 */
export async function startEngines(): Promise<void> {
  startQualityThread();
  await Promise.all([startOcr(), loadBarcodeModule()]);
}

export async function stopEngines(): Promise<void> {
  await Promise.all([stopOcr(), stopQualityThread()]);
  releaseSpectrumPlans();
  releaseDescreenPlans();
}
