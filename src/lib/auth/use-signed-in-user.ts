import { useSyncExternalStore } from 'react';
import type { User } from 'oidc-client-ts';
import { getSignedInUser, subscribeSignIn } from './sign-in';

/** The person signed in in this tab (null when none), re-rendering as they sign in, renew or sign out. */
export function useSignedInUser(): User | null {
  return useSyncExternalStore(subscribeSignIn, getSignedInUser);
}
