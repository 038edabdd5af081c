/** `sessionStorage` key: where this tab returns after signing in on `/identity`. */
const RETURN_KEY = 'tessera.demo.after-sign-in';

/** Pages that may send a signed-out visitor to sign in and have them brought back (no open redirect). */
const RETURN_PATHS = new Set(['/device']);

/**
 * Sends a signed-out visitor of `path` to `/identity` to sign in; that page brings them back after
 * the sign-in. The way back stays in this tab's `sessionStorage`, never in a URL.
 */
export function signInAndReturn(path: string): void {
  if (RETURN_PATHS.has(path)) sessionStorage.setItem(RETURN_KEY, path);
  location.assign('/identity');
}

/** The page waiting for this tab's sign-in, if any (an allowed path only). */
export function pendingReturn(): string | undefined {
  const path = sessionStorage.getItem(RETURN_KEY);
  return path !== null && RETURN_PATHS.has(path) ? path : undefined;
}

/** Forgets the way back: taken after a sign-in, or stale when the tab was already signed in. */
export function forgetReturn(): void {
  sessionStorage.removeItem(RETURN_KEY);
}
