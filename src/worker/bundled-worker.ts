/**
 * The package's own encoder worker, written in the one form Vite and webpack 5 follow, bundle and
 * rename: `new Worker(new URL('<literal>', import.meta.url))`. In the published package the literal
 * names the prebuilt `dist/worker/encoder.worker.js`; in this repository, its source.
 */

/** Starts the encoder worker that ships in the package. */
export function createBundledWorker(): Worker {
  return new Worker(new URL('./encoder.worker.js', import.meta.url), { type: 'module', name: 'vmem-encoders' });
}
