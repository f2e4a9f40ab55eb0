/** Every failure vmem reports carries one of these codes. */
export type VmemErrorCode =
  | 'EMPTY_ROUND'
  | 'EMPTY_QUERY'
  | 'TEXT_TOO_LONG'
  | 'IMAGE_DECODE_FAILED'
  | 'UNSUPPORTED_FILE'
  | 'UNKNOWN_ROUND'
  | 'UNKNOWN_IMAGE'
  | 'DUPLICATE_ROUND'
  | 'INVALID_INPUT'
  | 'ENCODER_MISMATCH'
  | 'MODEL_LOAD_FAILED'
  | 'DEPENDENCY_MISSING'
  | 'LLM_UNAVAILABLE'
  | 'LLM_HTTP'
  | 'LLM_TIMEOUT'
  | 'LLM_MALFORMED'
  | 'LLM_CONTEXT_LENGTH'
  | 'STORAGE_FAILED'
  | 'QUOTA_EXCEEDED'
  | 'MEMORY_LOCKED'
  | 'MEMORY_EXISTS'
  | 'INDEX_CORRUPT'
  | 'PASSPHRASE_REQUIRED'
  | 'WRONG_PASSPHRASE'
  | 'SYNC_UNREACHABLE'
  | 'SYNC_UNAUTHORIZED'
  | 'SYNC_CONFLICT'
  | 'INTEGRITY_ERROR'
  | 'WORKER_FAILED'
  | 'WORKER_TIMEOUT'
  | 'CLOSED';

/**
 * Base class of every error vmem throws. `code` says which case it is; the message says what to do.
 * The code is also put in `name` (`VmemError:CODE`) so it survives structured cloning across workers.
 * @example
 * try { await memory.forget('nope') } catch (e) { if (isVmemError(e) && e.code === 'UNKNOWN_ROUND') … }
 */
export class VmemError extends Error {
  readonly code: VmemErrorCode;
  constructor(code: VmemErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = `VmemError:${code}`;
  }
}

/** An LLM call failed: HTTP status, timeout, malformed reply, or context too long. */
export class LlmError extends VmemError {
  /** HTTP status when the server answered; undefined for timeouts and network failures. */
  readonly status: number | undefined;
  constructor(code: Extract<VmemErrorCode, `LLM_${string}`>, message: string, options?: { cause?: unknown; status?: number }) {
    super(code, message, options);
    this.status = options?.status;
  }
}

/** True for any vmem error, also one that crossed a worker boundary and lost its prototype. */
export function isVmemError(error: unknown): error is VmemError {
  return error instanceof VmemError || (error instanceof Error && error.name.startsWith('VmemError:'));
}

/** The code of a vmem error, also one rebuilt from `name` after structured cloning. */
export function errorCode(error: unknown): VmemErrorCode | undefined {
  if (error instanceof VmemError) return error.code;
  if (error instanceof Error && error.name.startsWith('VmemError:')) return error.name.slice('VmemError:'.length) as VmemErrorCode;
  return undefined;
}

export function isLlmError(error: unknown): error is LlmError {
  return error instanceof LlmError || (isVmemError(error) && (errorCode(error) ?? '').startsWith('LLM_'));
}
