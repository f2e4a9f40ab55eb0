/**
 * Stands in for `vmem/browser`'s bundled worker in the drop-in build (scripts/build-app.ts): the
 * drop-in always starts the worker from its own folder (`baseUrl`), so Vite need not bundle a
 * second copy of the worker and its models into the script.
 */
import { VmemError } from 'vmem';

export function createBundledWorker(): Worker {
  throw new VmemError('INVALID_INPUT', 'The drop-in starts its worker from baseUrl; pass openMemory(name, { baseUrl }).');
}
