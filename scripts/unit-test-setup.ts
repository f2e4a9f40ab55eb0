/**
 * Vitest's global setup: the model files the package ships, converted into `models/` before any test
 * runs (a few seconds the first time, nothing once they are up to date). Node's encoders read those
 * files, as an installed package reads `dist/worker/models/`: nothing converts at run time.
 */
import { convertModels } from './convert-models.js';

export async function setup(): Promise<void> {
  await convertModels();
}
