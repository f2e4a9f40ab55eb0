/** Registers the offline service worker (production builds only; it would fight Vite's dev server). */

/**
 * Registers `url` as the service worker for the app's folder. Resolves false where service workers
 * are unavailable (file://, some private modes) or during `vite dev`.
 */
export async function registerServiceWorker(url: string): Promise<boolean> {
  if (import.meta.env.DEV || !('serviceWorker' in navigator)) return false;
  await navigator.serviceWorker.register(url, { scope: './' });
  return true;
}
