/**
 * Where the drop-in script was loaded from, read while it loads (`document.currentScript` is set
 * only then; an IIFE has no import.meta). Its folder holds the worker, the models and PouchDB.
 */
export const SCRIPT_URL: string | undefined =
  (typeof document !== 'undefined' && (document.currentScript as HTMLScriptElement | null)?.src) || import.meta.url || undefined;
