/**
 * Content-Security-Policy violations, kept so that a failure they caused can say so. A host page's
 * policy that blocks the encoder worker, or a model fetch inside it, shows up only as a bare error
 * event or "Failed to fetch"; the browser reports the reason separately, as a
 * `securitypolicyviolation` event on the document or the worker's global scope, usually a moment
 * after the failure itself.
 */

/** What a failure can ask about the policy violations seen where it happened. */
export interface PolicyViolations {
  /**
   * Why the policy blocked `url` (or anything, without one), in a clause for an error message, when a
   * violation arrives within a moment; otherwise undefined.
   * @example `the page's Content-Security-Policy blocks https://a.example/dropin/encoder.worker.js (directive worker-src; the policy is "worker-src 'none'")`
   */
  explain(url?: string): Promise<string | undefined>;
  /** Stops listening. */
  stop(): void;
}

/** How long a failure waits for the browser's report of the violation behind it. */
const REPORT_WAIT_MS = 150;

/** Listens for violations on `target` (a document or a worker's global scope) for as long as it lives. */
export function watchPolicyViolations(target: EventTarget | undefined, where: string): PolicyViolations {
  const seen: SecurityPolicyViolationEvent[] = [];
  const record = (event: Event): void => void seen.push(event as SecurityPolicyViolationEvent);
  target?.addEventListener('securitypolicyviolation', record);
  // A browser may report only the origin of what it blocked.
  const find = (url: string | undefined) => seen.find((event) => url === undefined || event.blockedURI === url || (event.blockedURI !== '' && url.startsWith(event.blockedURI)));
  return {
    stop: () => target?.removeEventListener('securitypolicyviolation', record),
    async explain(url) {
      if (target === undefined) return undefined;
      if (find(url) === undefined) await new Promise((resolve) => setTimeout(resolve, REPORT_WAIT_MS));
      const event = find(url);
      if (event === undefined) return undefined;
      return `${where}'s Content-Security-Policy blocks ${event.blockedURI || 'it'} (directive ${event.effectiveDirective}; the policy is "${event.originalPolicy}")`;
    },
  };
}
