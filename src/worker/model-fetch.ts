/**
 * The worker's `fetch` for model files: a fetch the Content-Security-Policy blocked says which
 * directive did it, instead of a bare "Failed to fetch".
 */
import type { FetchAsset } from '../encoders/assets.js';
import { VmemError } from '../errors.js';
import { watchPolicyViolations } from './policy-violations.js';

/** A `FetchAsset` over the scope's `fetch` that names the policy that blocked a file. */
export function createModelFetch(scope: WindowOrWorkerGlobalScope & EventTarget): FetchAsset {
  const violations = watchPolicyViolations(scope, 'the worker');
  return async (url) => {
    try {
      return await scope.fetch(url);
    } catch (cause) {
      const blocked = await violations.explain(url);
      if (blocked === undefined) throw cause;
      throw new VmemError('MODEL_LOAD_FAILED', `Could not load ${url}: ${blocked}. Allow the folder the models are served from in connect-src; docs/browser.md lists the directives vmem needs.`, { cause });
    }
  };
}
