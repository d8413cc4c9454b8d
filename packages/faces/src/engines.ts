import { FaceEngine } from './engine';

/**
 * The engines of @idv/faces, in one place: the face models (human on tfjs' wasm backend), one per process
 * or worker thread, loaded on first use and kept. `startEngines` loads and warms them ahead (a service's
 * worker at start, so no person's first frame pays for it); `stopEngines` waits for the work under way and
 * lets the engine go (tests, a CLI before it exits, a thread before it ends); the weights themselves stay
 * with the process, as human keeps them per module. The recapture model the pipeline also
 * runs is @idv/verification's, behind that package's own engines.
 */
let shared: Promise<FaceEngine> | undefined;

/** The process's (or worker thread's) engine, loaded once; a failed load is retried on the next call. */
export function faceEngine(): Promise<FaceEngine> {
  if (shared === undefined) {
    const loading = FaceEngine.load();
    shared = loading;
    loading.catch(() => {
      if (shared === loading) shared = undefined;
    });
  }
  return shared;
}

export async function startEngines(): Promise<void> {
  await faceEngine();
}

export async function stopEngines(): Promise<void> {
  const loading = shared;
  shared = undefined;
  const engine = await loading?.catch(() => undefined);
  await engine?.stop();
}
